/* quizgen: read a typed answer the way quizgen's grader does, and judge it (no state, no network).
 *
 * Mirrors quizgen/grade/parse.py and compare.py: numbers with thousands separators (65,536,
 * 65 536, 65_536), 25%, 37.5 percent, 16/64, ceil(100/32), the floor and ceiling brackets, 2^16,
 * min(8, 2), unit words (8 blocks, 48 KB, 64K registers, 2x, 8 blocks/SM) and each kind's
 * tolerance. Nothing typed is evaluated as code: a tokenizer over a whitelist feeds a small
 * recursive-descent parser. qzAnswer.check(text, expected, kind, tolerance, unit) gives "right",
 * "wrong" or "unread" (kind "list": comma-separated whole numbers such as thread coordinates;
 * kind "text": one word, case and punctuation aside).
 *
 * The card templates carry this file inline, inside their own function (the build puts it where
 * a template says "quizgen: answer.js"), so a card keeps nothing in the page between cards:
 * AnkiDroid and AnkiMobile load each side afresh, and scripts there cannot share a file.
 */
var qzAnswer = (function () {
  "use strict";
  var COUNT_UNITS = {
    warp: "warps", warps: "warps", block: "blocks", blocks: "blocks", blk: "blocks",
    blks: "blocks", tb: "blocks", tbs: "blocks", thread: "threads", threads: "threads",
    thr: "threads", lane: "lanes", lanes: "lanes", register: "registers",
    registers: "registers", reg: "registers", regs: "registers", cycle: "cycles",
    cycles: "cycles", cyc: "cycles", cycs: "cycles", clk: "cycles", clks: "cycles",
    clock: "cycles", clocks: "cycles", instruction: "instructions", instructions: "instructions",
    instr: "instructions", instrs: "instructions", inst: "instructions", insts: "instructions",
    sm: "SMs", sms: "SMs", wave: "waves", waves: "waves", iteration: "iterations",
    iterations: "iterations", iter: "iterations", iters: "iterations"
  };
  var BYTES = {
    b: 1, byte: 1, bytes: 1, kb: 1024, kib: 1024, kbyte: 1024, kbytes: 1024, kilobyte: 1024,
    kilobytes: 1024, kibibyte: 1024, kibibytes: 1024, mb: 1048576, mib: 1048576,
    megabyte: 1048576, megabytes: 1048576
  };
  var KINDS = {
    count: { warps: 1, blocks: 1, threads: 1, lanes: 1, registers: 1, instructions: 1, SMs: 1, waves: 1,
             iterations: 1 },
    fraction: { "%": 1 }, percent: { "%": 1 }, ratio: { x: 1 }, bytes: { B: 1 },
    cycles: { cycles: 1 }, real: null
  };
  /* what may follow "/" or "per" after a unit: 8 blocks/SM, 48 KB per block */
  var PER = { sm: 1, sms: 1, block: 1, blocks: 1, warp: 1, warps: 1, thread: 1, threads: 1,
              scheduler: 1, schedulers: 1, wave: 1, waves: 1, lane: 1, lanes: 1, kernel: 1 };
  var FUNCTIONS = { ceil: 1, floor: 1, min: 1, max: 1, round: 1 };
  var TOLERANCE = { count: 0, fraction: 0.0005, percent: 0.05, ratio: 0.005, bytes: 0,
                    cycles: 0.005, real: 0.0005 };

  function normalise(text) {
    var s = String(text).replace(/[\u2212\u2013]/g, "-").replace(/[\u00a0\u202f]/g, " ")
      .replace(/[\uff10-\uff19]/g, function (c) { return String.fromCharCode(c.charCodeAt(0) - 0xff10 + 48); })
      .replace(/[\u0966-\u096f]/g, function (c) { return String.fromCharCode(c.charCodeAt(0) - 0x0966 + 48); })
      .trim().toLowerCase();
    s = s.replace(/(\d)_(?=\d)/g, function (m, digit) { return digit; });
    if (!/\b(min|max)\s*[(]/.test(s)) {
      /* 65,536 and 65 536: groups of three after a first group of 1-3 digits that is not 0 */
      s = s.replace(/(^|[^\d.,])([1-9]\d{0,2}(?:[, ]\d{3})+)(?![\d,])/g, function (m, pre, num) {
        var sep = num.charAt(num.search(/[, ]/));
        return num.split(sep).slice(1).every(function (g) { return g.length === 3; }) && num.indexOf(sep === "," ? " " : ",") < 0
          ? pre + num.split(sep).join("") : m;
      });
    }
    return s;
  }

  function tokens(s) {
    var out = [], re = /\s*(?:(\d+(?:\.\d*)?(?:e[+-]?\d+)?|\.\d+(?:e[+-]?\d+)?)|([a-z]+)|(\*\*|[-+*\/^(),%\u00d7\u00b7\u00f7\u2308\u2309\u230a\u230b]))/y, m;
    re.lastIndex = 0;
    while (re.lastIndex < s.length) {
      var at = re.lastIndex;
      m = re.exec(s);
      if (!m) { if (!s.slice(at).trim()) break; return null; }
      if (m[1] !== undefined) out.push({ t: "n", v: parseFloat(m[1]) });
      else if (m[2] !== undefined) out.push({ t: "w", v: m[2] });
      else out.push({ t: "o", v: m[3] === "**" ? "^" : m[3] === "\u00d7" || m[3] === "\u00b7" ? "*" : m[3] === "\u00f7" ? "/" : m[3] });
    }
    for (var n = 1; n + 1 < out.length; n++) {      /* 2 x 3: between two operands, x multiplies */
      var before = out[n - 1], after = out[n + 1];
      if (out[n].t === "w" && out[n].v === "x" && (before.t === "n" || before.v === ")") &&
          (after.t === "n" || after.v === "(")) out[n] = { t: "o", v: "*" };
    }
    return out;
  }

  function parse(list) {
    var i = 0, depth = 0;
    function peek() { return list[i]; }
    function isOp(v) { var t = list[i]; return t && t.t === "o" && t.v === v; }
    function need(v) { if (!isOp(v)) throw 0; i++; }
    function expr() {
      if (++depth > 20) throw 0;
      var v = term();
      while (isOp("+") || isOp("-")) { var op = list[i++].v, r = term(); v = op === "+" ? v + r : v - r; }
      depth--; return v;
    }
    function term() {
      var v = unary();
      while ((isOp("*") || isOp("/")) && !(isOp("*") && list[i + 1] === undefined)) {
        var op = list[i++].v, r = unary();
        if (op === "/") { if (r === 0) throw 0; v = v / r; } else v = v * r;
      }
      return v;
    }
    function unary() {
      if (isOp("-")) { i++; return -unary(); }
      if (isOp("+")) { i++; return unary(); }
      var b = atom();
      if (isOp("^")) { i++; var e = unary(); if (Math.abs(e) > 64 || e !== Math.floor(e)) throw 0; return Math.pow(b, e); }
      return b;
    }
    function atom() {
      var t = peek();
      if (!t) throw 0;
      if (t.t === "n") { i++; return t.v; }
      if (isOp("(")) { i++; var v = expr(); need(")"); return v; }
      if (isOp("\u2308")) { i++; var c = expr(); need("\u2309"); return Math.ceil(c - 1e-9); }
      if (isOp("\u230a")) { i++; var f = expr(); need("\u230b"); return Math.floor(f + 1e-9); }
      if (t.t === "w" && FUNCTIONS.hasOwnProperty(t.v) && list[i + 1] && list[i + 1].v === "(") {
        i += 2;
        var args = [expr()];
        while (isOp(",")) { i++; args.push(expr()); }
        need(")");
        if (t.v === "ceil" && args.length === 1) return Math.ceil(args[0] - 1e-9);
        if (t.v === "floor" && args.length === 1) return Math.floor(args[0] + 1e-9);
        if (t.v === "round" && args.length === 1) return Math.round(args[0]);
        if (t.v === "min") return Math.min.apply(null, args);
        if (t.v === "max") return Math.max.apply(null, args);
      }
      throw 0;
    }
    var value = expr();
    return { value: value, rest: list.slice(i) };
  }

  /* {value, unit} of a typed answer, or null when it cannot be read */
  function readAnswer(text) {
    var s = normalise(text);
    if (!s || s.length > 200) return null;
    var list = tokens(s);
    if (!list || !list.length) return null;
    var read;
    try { read = parse(list); } catch (e) { return null; }
    var value = read.value, unit = null, rest = read.rest, k;
    if (!isFinite(value)) return null;
    for (k = 0; k < rest.length; k++) {
      var t = rest[k], w = t.v;
      if (t.t === "o" && w === "%" && unit === null) { value /= 100; unit = "%"; }
      else if (t.t === "o" && w === "*" && k === rest.length - 1 && unit === null) unit = "x";
      else if (t.t === "w" && (w === "percent" || w === "pct") && unit === null) { value /= 100; unit = "%"; }
      else if (t.t === "w" && w === "x" && unit === null) unit = "x";
      else if (t.t === "w" && (w === "k" || w === "m") && unit === null && k + 1 < rest.length) value *= w === "k" ? 1024 : 1048576;
      else if (t.t === "w" && (w === "k" || w === "m") && unit === null) { value *= w === "k" ? 1024 : 1048576; unit = "B"; }
      else if (t.t === "w" && BYTES.hasOwnProperty(w) && unit === null) { value *= BYTES[w]; unit = "B"; }
      else if (t.t === "w" && COUNT_UNITS.hasOwnProperty(w) && unit === null) unit = COUNT_UNITS[w];
      else if (((t.t === "o" && w === "/") || (t.t === "w" && w === "per")) && unit !== null && rest[k + 1] &&
               PER.hasOwnProperty(rest[k + 1].v) && k + 2 === rest.length) k++;
      else return null;
    }
    return { value: value, unit: unit };
  }

  function within(value, want, tol) {
    return Math.abs(value - want) <= tol + 1e-9 * Math.max(1, Math.abs(want));
  }

  /* "right", "wrong" or "unread": the grader's verdict on `text` for the expected answer */
  function check(text, answer, kind, tolText, unitWord) {
    if (kind === "text") {
      var words = function (t) {
        return String(t).toLowerCase().replace(/[_\-.:'"`()\x5b\x5d{}]/g, " ").replace(/\s+/g, " ").trim();
      };
      if (!words(text)) return "unread";
      return words(text) === words(answer) ? "right" : "wrong";
    }
    if (kind === "list") {
      var want = answer.split(",").map(Number);
      var got = normalise(text).replace(/[(){}\x5b\x5d]/g, " ").split(/[\s,;]+/).filter(Boolean);
      if (!got.length || got.some(function (g) { return !isFinite(Number(g)); })) return "unread";
      return got.length === want.length && got.every(function (g, n) { return Number(g) === want[n]; })
        ? "right" : "wrong";
    }
    var read = readAnswer(text);
    if (!read) return "unread";
    var wantValue = Number(answer), value = read.value, unit = read.unit;
    if (isNaN(wantValue)) { var w = readAnswer(answer); if (!w) return "unread"; wantValue = w.value; }
    var tol = tolText !== "" && tolText != null ? Number(tolText) : TOLERANCE[kind];
    if (tolText === "" && kind === "real") tol = Math.max(tol, Math.abs(wantValue) / 1000);
    var allowed = KINDS[kind];
    if (unit !== null && allowed && !allowed[unit]) return "wrong";
    var wantUnit = unitWord ? COUNT_UNITS[String(unitWord).toLowerCase()] || null : null;
    if (wantUnit && unit && unit !== wantUnit && KINDS.count[unit] && KINDS.count[wantUnit]) return "wrong";
    if (kind === "fraction") {
      if (within(value, wantValue, tol)) return "right";
      if (unit === null && value > 1 && value <= 100 && wantValue >= 0 && wantValue <= 1)
        return within(value / 100, wantValue, tol) ? "right" : "wrong";
      return "wrong";
    }
    if (kind === "percent") {
      if (unit === "%") return within(value * 100, wantValue, tol) ? "right" : "wrong";
      if (within(value, wantValue, tol)) return "right";
      return value >= 0 && value <= 1 && within(value * 100, wantValue, tol) ? "right" : "wrong";
    }
    return within(value, wantValue, tol) ? "right" : "wrong";
  }

  return { read: readAnswer, check: check };
})();
