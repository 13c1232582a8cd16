#!/usr/bin/env node
// Loads a binary WTF file with npm's tracing-framework reader (wtf.db.load,
// the code path of the package's bin/dump.js) and prints what the library
// decoded, one JSON line per event in file order, comparable with the event
// lines of `atf dump --json` (docs/wtf-dump-format.md):
//
//   {"event":N,"time":T,"zone":Z,"args":A}
//
// N is the name of the event's define; T the u32 time field as the library
// read it (microseconds); Z the library's current zone when it read the event,
// {"name":..,"type":..,"location":..}, or null while that is still its unnamed
// default zone; A the arguments as the library's generated argument parser
// returned them, by name in define order, rewritten only where JSON cannot
// carry the library's value as is: typed arrays become arrays, float32 NaN and
// infinities the strings "NaN", "Infinity", "-Infinity", time32 (which the
// library returns in milliseconds, u32 / 1000) the u32 again, and a value the
// library read from past the end of the event buffer (it does not check) the
// string "<undefined>".
//
// After the events, one line per zone of the library's database (its own
// nesting analysis, after its sort and "rescope" pass):
//
//   {"zone_summary":{"name":..,"type":..,"location":..},"events":C,
//    "max_depth":D,"open_scopes":K}
//
// K is the depth of the library's scope stack after the zone's last event:
// the scopes it saw entered and never left.
//
// The library is not modified: this script wraps a few of its functions
// (argument parsers, the built-in event handlers, EventList.insert) to see
// each event as the library decodes it. Exit 0 when the library loaded the
// file, 1 when it refused it (its reason on stderr), 2 for usage errors.
'use strict';
var fs = require('fs');
var path = require('path');

// The package is found the usual way: NODE_PATH=DIR/node_modules for an
// install_wtf.sh DIR.
function loadWtf() {
  return require('tracing-framework');
}

function zoneInfo(zone) {
  if (!zone) {
    return null;
  }
  var name = zone.getName();
  if (name === '' && zone.getType() === '' && zone.getLocation() === '') {
    return null;
  }
  return {name: name, type: zone.getType(), location: zone.getLocation()};
}

function floatValue(v) {
  if (typeof v != 'number' || isFinite(v)) {
    return v;
  }
  return isNaN(v) ? 'NaN' : (v > 0 ? 'Infinity' : '-Infinity');
}

// Copies the parser's result into plain JSON values, by the define's types.
function copyArgs(type, parsed) {
  var out = {};
  var vars = type.args || [];
  for (var i = 0; i < vars.length; i++) {
    var name = vars[i].name;
    var typeName = vars[i].typeName;
    var v = parsed[name];
    if (v === undefined) {
      v = '<undefined>';  // the library read past the end of the buffer
    } else if (ArrayBuffer.isView(v)) {
      v = Array.prototype.slice.call(v);
      if (typeName == 'float32[]') {
        v = v.map(floatValue);
      }
    } else if (typeName == 'float32') {
      v = floatValue(v);
    } else if (typeName == 'time32' && typeof v == 'number') {
      v = Math.round(v * 1000);
    } else if (v !== null && typeof v == 'object') {
      v = JSON.parse(JSON.stringify(v));
    }
    out[name] = v;
  }
  return out;
}

function main(argv) {
  if (argv.length != 1 || argv[0] == '-h' || argv[0] == '--help') {
    process.stderr.write('usage: dump_real.js FILE.wtf-trace\n');
    return Promise.resolve(argv.length == 1 ? 0 : 2);
  }
  var file = argv[0];
  var wtf = loadWtf();
  var records = [];
  var pending = null;        // the arguments parsed for the current event
  var source = null;         // the ChunkedDataSource reading the file
  var reasons = [];

  // Only the package's exported names are reachable from node; the hooks
  // below go through them (the objects are the library's own).
  //
  // Every argument parser the library generates: remember the raw result.
  var Builder = Object.getPrototypeOf(wtf.db.EventType.getBuilder_());
  var generate = Builder.generate;
  Builder.generate = function(type) {
    var parse = generate.call(this, type);
    return function(buffer) {
      var word = buffer.offset >> 2;
      var time = buffer.uint32Array[word - 1];
      var result = parse(buffer);
      pending = {time: time, args: copyArgs(type, result)};
      return result;
    };
  };

  // The data source announces itself to the database before it reads any
  // data: wrap its built-in handlers (define, zone create/delete/set, time
  // ranges).
  var Database = wtf.db.Database.prototype;
  var beginInserting = Database.beginInsertingEvents;
  Database.beginInsertingEvents = function(src) {
    source = src;
    var table = src.binaryDispatch_ || {};
    Object.keys(table).forEach(function(name) {
      var handler = table[name];
      table[name] = function(type, args) {
        var zone = zoneInfo(this.currentZone_);
        var parsed = pending;
        pending = null;
        var insert = handler.call(this, type, args);
        if (!insert) {
          records.push({event: type.name,
                        time: parsed ? parsed.time : null,
                        zone: zone,
                        args: parsed ? parsed.args : {}});
        } else {
          // Inserted below, with the arguments as parsed (the library
          // renumbers time range ids before inserting).
          pending = parsed;
        }
        return insert;
      };
    });
    return beginInserting.apply(this, arguments);
  };

  var List = wtf.db.EventList.prototype;
  var insert = List.insert;
  List.insert = function(type, time, args) {
    var parsed = pending;
    pending = null;
    records.push({event: type.name,
                  time: time,
                  zone: zoneInfo(source ? source.currentZone_ : null),
                  args: args && parsed ? parsed.args : {}});
    return insert.call(this, type, time, args);
  };

  var sourceError = Database.sourceError;
  Database.sourceError = function(src, title, detail) {
    reasons.push(title + (detail ? ': ' + detail : ''));
    return sourceError.apply(this, arguments);
  };

  var input = file;
  if (!/\.wtf-trace$/.test(file)) {
    // wtf.db.load takes any other name for JSON: hand it the bytes instead.
    input = new Uint8Array(fs.readFileSync(file));
  } else if (!fs.existsSync(file)) {
    process.stderr.write('dump_real.js: cannot open ' + file + '\n');
    return Promise.resolve(2);
  }
  return new Promise(function(resolve) {
    wtf.db.load(input, function(db) {
      if (!db || db instanceof Error) {
        process.stderr.write('dump_real.js: the library refused ' + file +
                             ': ' + (reasons.length ? reasons.join('; ') :
                             String(db)) + '\n');
        resolve(1);
        return;
      }
      var out = [];
      for (var i = 0; i < records.length; i++) {
        out.push(JSON.stringify(records[i]));
      }
      var zones = db.getZones();
      for (var z = 0; z < zones.length; z++) {
        var list = zones[z].getEventList();
        var open = 0;
        if (list.getCount()) {
          // Each event records the depth of the library's scope stack when
          // it reached it; the last one gives the scopes left open.
          var last = list.getEvent(list.getCount() - 1);
          var depth = last.getDepth();
          if (last.getType().eventClass == wtf.data.EventClass.SCOPE) {
            open = depth + 1;
          } else if (last.getName() == 'wtf.scope#leave') {
            open = depth ? depth - 1 : 0;
          } else {
            open = depth;
          }
        }
        out.push(JSON.stringify({
          zone_summary: zoneInfo(zones[z]),
          events: list.getCount(),
          max_depth: list.getMaximumScopeDepth(),
          open_scopes: open
        }));
      }
      process.stdout.write(out.join('\n') + (out.length ? '\n' : ''));
      process.stderr.write('dump_real.js: ' + file + ': ' + records.length +
                           ' events, ' + zones.length + ' zones\n');
      resolve(0);
    });
  });
}

main(process.argv.slice(2)).then(function(code) {
  process.exitCode = code;
}, function(err) {
  process.stderr.write('dump_real.js: ' + (err && err.stack || err) + '\n');
  process.exitCode = 1;
});
