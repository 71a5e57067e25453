// Preloaded into npm (NODE_OPTIONS=--require): for every log event npm emits (proc-log's
// process.emit('log', level, title, ...args)), the statement that logged it, as one JSON line of the file
// named by ERRDEX_TRUTH: level, title, the message's first line, and the first stack frame outside proc-log
// and this file (file, line, column).
'use strict'
const fs = require('node:fs')
const util = require('node:util')

const out = fs.openSync(process.env.ERRDEX_TRUTH, 'a')
const emit = process.emit
const skipped = /[\\/](proc-log[\\/]|npm_truth\.js)/

function caller () {
  const saved = Error.stackTraceLimit
  Error.stackTraceLimit = 30
  const stack = new Error().stack.split('\n').slice(1)
  Error.stackTraceLimit = saved
  for (const frame of stack) {
    const m = /\(?((?:file:\/\/)?\/[^():]+):(\d+):(\d+)\)?$/.exec(frame.trim())
    if (m && !skipped.test(m[1]) && !m[1].startsWith('node:')) {
      return { file: m[1].replace(/^file:\/\//, ''), line: Number(m[2]), column: Number(m[3]) }
    }
  }
  return null
}

process.emit = function (event, level, ...args) {
  if (event === 'log' && level !== 'pause' && level !== 'resume') {
    let message = ''
    try {
      message = util.format(...args.slice(1)).split(/\r?\n/)[0]
    } catch {
      message = ''
    }
    const row = { level, title: args[0] == null ? null : String(args[0]), message, at: caller() }
    fs.writeSync(out, JSON.stringify(row) + '\n')
  }
  return emit.call(this, event, level, ...args)
}
