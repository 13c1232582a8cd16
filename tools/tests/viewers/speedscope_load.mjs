// Loads a Chrome JSON trace into speedscope's web app (npm `speedscope`,
// dist/release/index.html) in headless Chromium, the way speedscope's own
// launcher (bin/cli.mjs) does it: the file, base64-encoded, in a script
// `speedscope.loadFileFromBase64(name, data)` named by #localProfilePath=.
// Then it reads back from the page what speedscope loaded and prints it as
// JSON: {"title", "profiles": [names], "frames": {profile: [frame names]}}.
//
// Usage: node speedscope_load.mjs NPM_DIR TRACE.json OUT.json [SCREENSHOT.png]
//   NPM_DIR holds node_modules/speedscope and node_modules/playwright-core.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createRequire } from 'node:module';

const [npmDir, tracePath, outPath, shotPath] = process.argv.slice(2);
if (!npmDir || !tracePath || !outPath) {
    console.error('usage: node speedscope_load.mjs NPM_DIR TRACE.json OUT.json [SCREENSHOT.png]');
    process.exit(2);
}
const require = createRequire(path.join(path.resolve(npmDir), 'node_modules', '.package-lock.json'));
const { chromium } = require('playwright-core');
const indexHtml = path.join(path.resolve(npmDir), 'node_modules', 'speedscope', 'dist', 'release', 'index.html');
if (!fs.existsSync(indexHtml)) {
    console.error(`speedscope_load: ${indexHtml} is missing (npm install speedscope)`);
    process.exit(2);
}

const work = fs.mkdtempSync(path.join(os.tmpdir(), 'atf-speedscope-'));
const jsPath = path.join(work, 'profile.js');
const data = fs.readFileSync(tracePath).toString('base64');
fs.writeFileSync(jsPath, `speedscope.loadFileFromBase64(${JSON.stringify(path.basename(tracePath))}, ${JSON.stringify(data)})`);
const url = `file://${indexHtml}#localProfilePath=${jsPath}`;

const browser = await chromium.launch({
    executablePath: process.env.ATF_CHROMIUM || '/usr/bin/chromium',
    headless: true,
    args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update',
           '--disable-sync', '--no-first-run'],   // playwright gives it a fresh --user-data-dir
});
// The toolbar's profile name: "NAME <span>(i/n)</span>".
function currentProfile() {
    const count = Array.from(document.querySelectorAll('span')).find(s => /^\(\d+\/\d+\)$/.test(s.textContent));
    return count && count.parentElement ? count.parentElement.textContent.replace(/ \(\d+\/\d+\)$/, '') : null;
}

// The sandwich table's rows: total "1.2µs (12%)", self, then the symbol name.
function frameRows() {
    return Array.from(document.querySelectorAll('tr'))
        .filter(tr => tr.children.length === 3 && tr.children[0].tagName === 'TD' && /%\)$/.test(tr.children[0].textContent))
        .map(tr => tr.lastElementChild.textContent);
}

let status = 0;
try {
    const page = await browser.newPage({ viewport: { width: 1400, height: 700 } });
    const errors = [];
    page.on('pageerror', e => errors.push(e.message));
    await page.goto(url);
    // speedscope names its tab after the file once the import is done.
    await page.waitForFunction(name => document.title.startsWith(name), path.basename(tracePath), { timeout: 60000 });
    // The profile selector lists every profile (one per thread), in a table.
    const profiles = await page.evaluate(() =>
        Array.from(document.querySelectorAll('tr[title]')).map(tr => tr.getAttribute('title')));
    if (shotPath) {
        await page.waitForTimeout(500);
        await page.screenshot({ path: shotPath });
    }
    // The sandwich view ("3") lists the frames of the current profile as text;
    // "n" moves to the next profile.
    await page.keyboard.press('3');
    const frames = {};
    for (let i = 0; i < profiles.length; i++) {
        await page.waitForFunction(() => Array.from(document.querySelectorAll('th')).some(th => /Symbol Name/.test(th.textContent)));
        const current = await page.evaluate(currentProfile);
        // The header is drawn before the rows: wait for the rows (a profile
        // with no frames at all shows none, so the wait is bounded and what
        // the page shows then is what is reported).
        await page.waitForFunction(`(${frameRows.toString()})().length > 0`, null, { timeout: 15000 })
            .catch(() => {});
        frames[current] = await page.evaluate(frameRows);
        if (i + 1 < profiles.length) {
            await page.keyboard.press('n');
            await page.waitForFunction(`(${currentProfile.toString()})() !== ${JSON.stringify(current)}`);
        }
    }
    const title = await page.title();
    fs.writeFileSync(outPath, JSON.stringify({ title, profiles, frames, errors }, null, 1) + '\n');
} catch (e) {
    console.error('speedscope_load:', e.message);
    status = 1;
} finally {
    await browser.close();
    fs.rmSync(work, { recursive: true, force: true });
}
process.exit(status);
