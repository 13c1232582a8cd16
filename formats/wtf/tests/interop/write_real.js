#!/usr/bin/env node
// Writes a set of real WTF traces with npm's tracing-framework (the library
// itself, not our code): write_real.js OUTDIR [NAME...]; NAME.wtf-trace each,
// and one line "PATH SIZE" per file on stdout. --list: the names.
//
// Each trace is written by a child process of its own, so that every file
// starts from a fresh library state (event registry, zones, flow ids).
// Arguments are fixed; times come from the clock and vary from run to run.
'use strict';
var path = require('path');
var fs = require('fs');
var childProcess = require('child_process');

// The package is found the usual way: NODE_PATH=DIR/node_modules for an
// install_wtf.sh DIR.
function loadWtf() {
  return require('tracing-framework');
}

// Starts a snapshotting session with the given session options (no
// wtf.trace.node.start: that one also writes a second snapshot at exit).
function begin(wtf, options) {
  var opts = Object.assign({'wtf.trace.mode': 'snapshotting',
                            'wtf.trace.format': 'binary'}, options || {});
  wtf.trace.prepare(opts);
  wtf.trace.start(opts);
}

function finish(wtf, file) {
  wtf.trace.snapshot('file://' + path.resolve(file));
  wtf.trace.stop();
}

var SCENARIOS = {};

// Nested scopes, instance events, time stamps and marks.
SCENARIOS.basic = function(wtf) {
  begin(wtf);
  var outer = wtf.trace.events.createScope('app#outer(uint32 n)');
  var inner = wtf.trace.events.createScope('app#inner(int32 depth, ascii tag)');
  var tick = wtf.trace.events.createInstance('app#tick(uint32 i)');
  var noArgs = wtf.trace.events.createScope('app#noArgs()');
  for (var n = 0; n < 3; n++) {
    var s = outer(n);
    for (var d = 0; d < 3; d++) {
      var t = inner(d - 1, 'level' + d);
      tick(n * 10 + d);
      wtf.trace.leaveScope(t);
    }
    wtf.trace.timeStamp('frame', n);
    wtf.trace.mark('mark' + n, {frame: n});
    var z = noArgs();
    wtf.trace.leaveScope(z);
    wtf.trace.leaveScope(s);
  }
  var g = wtf.trace.enterScope('generic.scope');
  var tr = wtf.trace.enterTracingScope();
  wtf.trace.leaveScope(tr);
  wtf.trace.leaveScope(g, 'result');
  wtf.trace.timeStamp('no.value');
  wtf.trace.mark('no.value');
};

// Every argument type the library can write, with limits, nulls and empties.
SCENARIOS.types = function(wtf) {
  begin(wtf);
  var ints = wtf.trace.events.createInstance(
      'types#ints(bool b0, bool b1, int8 i8, uint8 u8, int16 i16, ' +
      'uint16 u16, int32 i32, uint32 u32)');
  var floats = wtf.trace.events.createInstance(
      'types#floats(float32 f, float32 g, float32 h)');
  var strs = wtf.trace.events.createScope(
      'types#strings(ascii a, utf8 u, ascii nul, utf8 empty)');
  var anys = wtf.trace.events.createInstance(
      'types#any(any o, any a, any n, any s, any t, any z)');
  var misc = wtf.trace.events.createInstance(
      'types#misc(flowId f, time32 t, flowId none)');
  var arrays = wtf.trace.events.createInstance(
      'types#arrays(int8[] i8, uint8[] u8, int16[] i16, uint16[] u16, ' +
      'int32[] i32, uint32[] u32, float32[] f32)');
  var emptyArrays = wtf.trace.events.createInstance(
      'types#emptyArrays(int8[] i8, uint16[] u16, float32[] f32, ' +
      'uint32[] nul)');
  var aliases = wtf.trace.events.createInstance(
      'types#aliases(byte a, octet b, short c, unsigned short d, long e, ' +
      'unsigned long f, float g, DOMString h, sequence<uint8> i)');
  ints(false, true, -128, 255, -32768, 65535, -2147483648, 4294967295);
  ints(true, false, 127, 0, 32767, 0, 2147483647, 0);
  ints(false, false, -1, 1, -1, 1, -1, 1);
  floats(1.5, -0.1, 3.4028234663852886e38);
  floats(1e-45, 0, -2.5);
  floats(NaN, -Infinity, -0);
  floats(Infinity, 16777217, 1 / 3);
  var s = strs('plain ascii', 'utf8 \u00e9\u4e2d\ud83d\ude00', null, '');
  wtf.trace.leaveScope(s);
  anys({k: [1, 2, {x: 'y'}], f: 1.25}, [true, null, 'q'], 42, 'str', true,
       null);
  // An empty string as 'any' makes the library's writer store a null in its
  // string table, and the snapshot then fails: not written.
  anys(0, -7.5, false, 'x', {}, []);
  var flow = wtf.trace.branchFlow('types.flow');
  misc(flow, 12.345, null);
  arrays([-128, 0, 127], [0, 128, 255], [-32768, 1, 32767], [0, 1, 65535],
         [-2147483648, 0, 2147483647], [0, 1, 4294967295],
         [1.5, -2.25, 0.1]);
  arrays([1], [1, 2], [1, 2, 3], [1, 2, 3, 4], [5], [6, 7], [8, 9, 10]);
  emptyArrays([], [], [], null);
  aliases(-5, 250, -300, 60000, -70000, 70000, 0.5, 'dom', [1, 2, 3]);
};

// char, wchar, char[] and wchar[]: types the library writes and reads, but
// that its documentation does not list.
SCENARIOS.chars = function(wtf) {
  begin(wtf);
  var chars = wtf.trace.events.createInstance(
      'chars#one(char c, wchar w, char[] cs, wchar[] ws, char[] nul)');
  chars('A', '\u00e9', 'hello', 'w\u00e9\u4e2d', null);
  chars('z', 'Z', '', '', null);
};

// Several zones, created, switched with push/pop, deleted.
SCENARIOS.zones = function(wtf) {
  begin(wtf);
  var work = wtf.trace.events.createScope('zones#work(uint32 zone)');
  var ping = wtf.trace.events.createInstance('zones#ping(uint32 i)');
  var a = wtf.trace.createZone('worker-a', 'script', 'worker-a.js');
  var b = wtf.trace.createZone('worker-b', 'script', 'worker-b.js');
  var c = wtf.trace.createZone('gpu', 'native_gpu', 'gpu://0');
  for (var i = 0; i < 4; i++) {
    ping(100 + i);
    wtf.trace.pushZone(i % 2 ? a : b);
    var s = work(i);
    ping(i);
    wtf.trace.pushZone(c);
    ping(200 + i);
    wtf.trace.popZone();
    wtf.trace.leaveScope(s);
    wtf.trace.popZone();
  }
  wtf.trace.deleteZone(c);
  ping(999);
};

// wtf.trace.appendScopeData (generic, then the optimized per-key events the
// library defines after 100 calls) and a custom APPEND_SCOPE_DATA event.
SCENARIOS.append = function(wtf) {
  begin(wtf);
  var scope = wtf.trace.events.createScope('append#scope(uint32 i)');
  var extra = wtf.trace.events.createInstance(
      'append#extra(uint32 a, ascii b)',
      wtf.data.EventFlag.APPEND_SCOPE_DATA);
  for (var i = 0; i < 110; i++) {
    var s = scope(i);
    wtf.trace.appendScopeData('count', i);
    wtf.trace.appendScopeData('label', 'l' + (i % 3));
    wtf.trace.appendScopeData('flag', i % 2 == 0);
    wtf.trace.appendScopeData('blob', {i: i, list: [i, i + 1]});
    extra(i * 2, 'x' + i);
    wtf.trace.leaveScope(s);
  }
};

// Flows: branch, extend, append data, terminate; a span flow id.
SCENARIOS.flows = function(wtf) {
  begin(wtf);
  var step = wtf.trace.events.createScope('flows#step(uint32 i)');
  var root = wtf.trace.branchFlow('root', {origin: 'test'});
  for (var i = 0; i < 3; i++) {
    var s = step(i);
    var child = wtf.trace.branchFlow('child' + i, i, root);
    wtf.trace.extendFlow(child, 'extend' + i, [i]);
    wtf.trace.appendFlowData(child, 'key' + i, 'value' + i);
    wtf.trace.terminateFlow(child, {done: i});
    wtf.trace.leaveScope(s);
  }
  wtf.trace.extendFlow(root, 'root.extend');
  wtf.trace.terminateFlow(root);
  var span = wtf.trace.spanFlow(12345);
  wtf.trace.extendFlow(span, 'span.extend', null);
  wtf.trace.clearFlow();
};

// Time ranges, overlapping.
SCENARIOS.timeranges = function(wtf) {
  begin(wtf);
  var mark = wtf.trace.events.createInstance('ranges#mark(uint32 i)');
  var r1 = wtf.trace.beginTimeRange('range.one', {n: 1});
  mark(1);
  var r2 = wtf.trace.beginTimeRange('range.two');
  mark(2);
  wtf.trace.endTimeRange(r1);
  mark(3);
  wtf.trace.endTimeRange(r2);
};

// Several event chunks in one file: a small buffer size.
SCENARIOS.chunks = function(wtf) {
  begin(wtf, {'wtf.trace.session.bufferSize': 1024,
              'wtf.trace.session.maximumMemoryUsage': 1024 * 1024});
  var scope = wtf.trace.events.createScope(
      'chunks#scope(uint32 i, ascii name, float32 f)');
  var inst = wtf.trace.events.createInstance('chunks#inst(int16 v, any a)');
  for (var i = 0; i < 200; i++) {
    var s = scope(i, 'name' + (i % 7), i / 4);
    inst(i - 100, i % 5 ? null : {i: i});
    if (i % 50 == 0) {
      wtf.trace.timeStamp('chunks.ts', i);
    }
    wtf.trace.leaveScope(s);
  }
  var late = wtf.trace.events.createInstance('chunks#late(uint32 i)');
  late(1);
};

// The ring buffer wraps: only the newest chunks are kept. With 510 scopes
// the oldest chunk kept starts (after its zone#set) with the leave of a scope
// whose enter was overwritten, as a real wrapped trace may.
SCENARIOS.ring = function(wtf) {
  begin(wtf, {'wtf.trace.session.bufferSize': 1024,
              'wtf.trace.session.maximumMemoryUsage': 4096});
  var scope = wtf.trace.events.createScope('ring#scope(uint32 i)');
  for (var i = 0; i < 510; i++) {
    var s = scope(i);
    wtf.trace.leaveScope(s);
  }
};

// A large-ish file: many events over many 64 KiB chunks.
SCENARIOS.large = function(wtf) {
  begin(wtf, {'wtf.trace.session.bufferSize': 65536,
              'wtf.trace.session.maximumMemoryUsage': 256 * 1024 * 1024});
  var frame = wtf.trace.events.createScope('large#frame(uint32 n)');
  var work = wtf.trace.events.createScope(
      'large#work(uint32 n, int32 k, float32 x, ascii label)');
  var sample = wtf.trace.events.createInstance(
      'large#sample(uint16 a, int8 b, bool c, uint32[] v)');
  for (var n = 0; n < 4000; n++) {
    var f = frame(n);
    for (var k = 0; k < 8; k++) {
      var w = work(n, k - 4, n * 0.5 + k, 'w' + k);
      sample(n & 0xffff, (k % 256) - 128, k % 2 == 1, [n, k, n * k]);
      wtf.trace.leaveScope(w);
    }
    if (n % 100 == 0) {
      wtf.trace.timeStamp('large.ts', n);
    }
    wtf.trace.leaveScope(f);
  }
};

var NAMES = Object.keys(SCENARIOS);

function main(argv) {
  if (argv[0] == '--one') {
    var name = argv[1];
    var wtf = loadWtf();
    SCENARIOS[name](wtf);
    finish(wtf, argv[2]);
    return 0;
  }
  if (argv[0] == '--list') {
    console.log(NAMES.join('\n'));
    return 0;
  }
  if (!argv.length || argv[0] == '-h' || argv[0] == '--help') {
    process.stderr.write('usage: write_real.js OUTDIR [NAME...] | --list\n' +
                         'NAMES: ' + NAMES.join(' ') + '\n');
    return argv.length ? 0 : 2;
  }
  var outDir = argv[0];
  var names = argv.length > 1 ? argv.slice(1) : NAMES;
  fs.mkdirSync(outDir, {recursive: true});
  for (var i = 0; i < names.length; i++) {
    if (!SCENARIOS[names[i]]) {
      process.stderr.write('write_real.js: unknown trace ' + names[i] + '\n');
      return 2;
    }
    var file = path.resolve(outDir, names[i] + '.wtf-trace');
    var r = childProcess.spawnSync(process.execPath,
        [__filename, '--one', names[i], file],
        {stdio: ['ignore', 'inherit', 'inherit'], cwd: outDir});
    if (r.status !== 0 || !fs.existsSync(file)) {
      process.stderr.write('write_real.js: writing ' + file + ' failed\n');
      return 1;
    }
    console.log(file + ' ' + fs.statSync(file).size);
  }
  return 0;
}

process.exitCode = main(process.argv.slice(2));
