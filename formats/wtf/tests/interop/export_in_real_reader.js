// Loads a WTF file with the real Web Tracing Framework's reader
// (npm tracing-framework, wtf.db.load: what its bin/dump.js uses, but for
// every zone, not only the first) and prints, per zone, one JSON line:
//   {"zone":NAME,"type":TYPE,"location":LOC,"max_depth":D,
//    "scopes":[[name, depth, time_ms, end_ms, args], ...],
//    "instances":[[name, time_ms, args], ...]}
// after the library rescoped the events (scope names from wtf.scope#enter,
// appended scope data merged into the scope's arguments). wtf.scope#leave
// and wtf.scope#appendData events are left out. Exit 1 when the library
// refuses the file (its reason on stderr).
// Usage: NODE_PATH=NPM_DIR/node_modules node export_in_real_reader.js FILE.wtf-trace
'use strict';
const wtf = require('tracing-framework');

const path = process.argv[2];
const origError = wtf.db.Database.prototype.sourceError;
let reason = null;
if (origError) {
  wtf.db.Database.prototype.sourceError = function(source, title, detail) {
    reason = title + (detail ? ': ' + detail : '');
    return origError.apply(this, arguments);
  };
}
wtf.db.load(path, function(db) {
  if (!db || db instanceof Error) {
    process.stderr.write('the library refused ' + path + ': ' + (reason || String(db)) + '\n');
    process.exit(1);
  }
  const out = [];
  for (const z of db.getZones()) {
    const list = z.getEventList();
    const scopes = [], instances = [];
    for (let it = list.begin(); !it.done(); it.next()) {
      const name = it.getName();
      if (it.isScope()) {
        scopes.push([name, it.getDepth(), it.getTime(), it.getEndTime(), it.getArguments() || {}]);
      } else if (name !== 'wtf.scope#leave' && name !== 'wtf.scope#appendData') {
        instances.push([name, it.getTime(), it.getArguments() || {}]);
      }
    }
    out.push(JSON.stringify({zone: z.getName(), type: z.getType(), location: z.getLocation(),
                             max_depth: list.getMaximumScopeDepth(), scopes: scopes, instances: instances}));
  }
  process.stdout.write(out.join('\n') + '\n', function() { process.exit(0); });
});
