/* quizgen skill notes: show the day's variant; on the back, the variant the front showed, and the
 * verdict on what was typed into Anki's own type-in box.
 *
 * Day d (Anki's default day: it starts at 4 am local time) shows variant order[d mod K], where
 * order is a shuffle of the K variants seeded by the note's Key: consecutive days differ and
 * every K consecutive days show each variant once. The other variants are removed from the page
 * before MathJax runs, so only the shown one is typeset and its figure loaded.
 *
 * The back shows the variant the front showed, even when 4 am falls between the two. The front
 * leaves a note of it where the back can read it: in the page (Anki desktop and AnkiDroid's new
 * study screen keep the page across the flip) and in the page's session storage (AnkiDroid's
 * reviewer loads each side as a fresh page, from the same address, with storage on). Where
 * neither survives, what was typed decides (the back's day's variant, or the day before's if
 * only that one takes the answer), and a back shown soon after 4 am with nothing to go on adds
 * the day before's variant, folded.
 *
 * Typing is Anki's own type-in box (on the field Words), so every client offers it (AnkiDroid
 * its native box); the back's comparison (#typeans) holds what was typed, which answer.js (put
 * inline below by the build) judges as the grader would, against the shown variant's answer.
 */
(function () {
  "use strict";
  /* quizgen: answer.js */
  var DAY = 86400000, ROLLOVER = 4 * 3600000, KEEP = 6 * 3600000, SOON = 2 * 3600000;
  var STORE = "quizgen-skill-front";

  function ankiDay(now) {
    var offset = new Date(now).getTimezoneOffset() * 60000;
    return Math.floor((now - offset - ROLLOVER) / DAY);
  }

  function sinceRollover(now) {
    var offset = new Date(now).getTimezoneOffset() * 60000;
    return ((now - offset - ROLLOVER) % DAY + DAY) % DAY;
  }

  function random(seed) {             /* mulberry32 */
    return function () {
      seed = (seed + 0x6D2B79F5) | 0;
      var t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
      t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
      return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
    };
  }

  function variantOf(key, count, day) {
    var order = [], next = random(key), i, j, swap;
    for (i = 0; i < count; i++) order.push(i + 1);
    for (i = count - 1; i > 0; i--) {
      j = Math.floor(next() * (i + 1));
      swap = order[i]; order[i] = order[j]; order[j] = swap;
    }
    return order[((day % count) + count) % count];
  }

  /* ---- what the front showed, for the back ---- */

  function remember(record) {
    window.qzSkillFront = record;
    try { window.sessionStorage.setItem(STORE, JSON.stringify(record)); } catch (e) { /* none */ }
  }

  function recall(key, count, now) {
    var found = [window.qzSkillFront], stored = null;
    try { stored = window.sessionStorage.getItem(STORE); } catch (e) { /* none */ }
    if (stored) { try { found.push(JSON.parse(stored)); } catch (e) { /* damaged */ } }
    for (var i = 0; i < found.length; i++) {
      var r = found[i];
      if (r && r.key === key && r.count === count && r.v >= 1 && r.v <= count &&
          r.at <= now && now - r.at <= KEEP) return r;
    }
    return null;
  }

  /* ---- what was typed: the typed line of Anki's comparison ---- */

  function typedText(root) {
    var shown = root.querySelector("#typeans");
    if (!shown) return "";
    var typed = "", nodes = shown.childNodes;
    for (var i = 0; i < nodes.length; i++) {
      var node = nodes[i];
      if (node.id === "typearrow") break;
      if (node.nodeType === 1 && /\btype(Good|Bad)\b/.test(node.className)) typed += node.textContent;
    }
    return typed.trim();
  }

  function verdictFor(text, question) {
    if (!text || !question || !question.hasAttribute("data-answer")) return null;
    return qzAnswer.check(text, question.getAttribute("data-answer"), question.getAttribute("data-kind"),
                          question.getAttribute("data-tol"), question.getAttribute("data-unit"));
  }

  function child(list, v) {
    for (var n = 0; n < list.children.length; n++) if (list.children[n].getAttribute("data-v") === String(v)) return list.children[n];
    return null;
  }

  /* ---- the card ---- */

  function show(root) {
    if (root.getAttribute("data-shown")) return;
    var lists = root.querySelectorAll(".qz-vs"), first = lists[0], count = 0, n, k;
    if (!first) return;
    for (n = 0; n < first.children.length; n++) if (first.children[n].classList.contains("qz-v")) count++;
    if (!count) return;
    var key = parseInt(root.getAttribute("data-key"), 10) || 0;
    var now = Date.now(), day = ankiDay(now), back = !!root.querySelector(".qz-checked");
    var v = variantOf(key, count, day), how = "day", other = null, typed = back ? typedText(root) : "";
    if (back) {
      var found = recall(key, count, now);
      if (found) { v = found.v; day = found.day; how = "front"; }
      else if (sinceRollover(now) < SOON) {
        var before = variantOf(key, count, day - 1);
        var today = verdictFor(typed, child(first, v)), yesterday = verdictFor(typed, child(first, before));
        if (yesterday === "right" && today !== "right") { v = before; day -= 1; how = "typed"; }
        else if (before !== v && !(today === "right" && yesterday !== "right")) other = before;
        else if (today === "right") how = "typed";
      }
    } else {
      remember({ key: key, count: count, v: v, day: day, at: now });
    }
    var keep = String(v), also = other === null ? null : String(other);
    for (k = 0; k < lists.length; k++) {
      var kids = Array.prototype.slice.call(lists[k].children);
      for (n = 0; n < kids.length; n++) {
        var at = kids[n].getAttribute("data-v");
        if (at !== keep && at !== also) lists[k].removeChild(kids[n]);
      }
    }
    root.setAttribute("data-shown", keep);
    root.setAttribute("data-day", String(day));
    root.setAttribute("data-how", how);
    if (also !== null) fold(root, lists, also);
    if (back) judge(root, typed, child(first, v));
  }

  function fold(root, lists, v) {
    var box = document.createElement("details"), summary = document.createElement("summary");
    box.className = "qz-fold qz-other-day";
    box.setAttribute("data-v", v);
    box.appendChild(summary);
    for (var k = 0; k < lists.length; k++) {
      var node = child(lists[k], v);
      if (!node) continue;
      if (node.hasAttribute("data-other")) summary.textContent = node.getAttribute("data-other");
      node.classList.add("qz-v-other");
      box.appendChild(node);
    }
    var last = lists[lists.length - 1];
    last.parentNode.insertBefore(box, last.nextSibling);
  }

  function judge(root, typed, question) {
    var shown = root.querySelector("#typeans"), result = root.querySelector(".qz-checked");
    if (shown) shown.style.display = "none";    /* Anki compares with variant 1 only */
    var verdict = verdictFor(typed, question);
    if (!result || verdict === null) return;
    var words = root.querySelector(".qz-words span") || document.createElement("span");
    result.textContent = (words.getAttribute("data-typed") || "") + ": " + typed + " \u2192 " +
      (verdict === "right" ? "\u2713 " : verdict === "wrong" ? "\u2717 " : "? ") + (words.getAttribute("data-" + verdict) || verdict);
    result.className = "qz-checked " + (verdict === "right" ? "qz-right" : "qz-wrong-typed");
    result.setAttribute("data-verdict", verdict);
    result.hidden = false;
  }

  window.qzSkill = { day: ankiDay, variantOf: variantOf };
  window.qzAnswer = qzAnswer;
  var roots = document.querySelectorAll(".qz-skill[data-key]");
  for (var r = 0; r < roots.length; r++) show(roots[r]);
})();
