/* quizgen skill notes: show the day's variant; check a typed answer where the page survives the flip.
 *
 * Day d (Anki's default day: it starts at 4 am local time) shows variant order[d mod K], where
 * order is a shuffle of the K variants seeded by the note's Key. Front and back compute the same
 * variant from the same day, so no state is needed across the flip; consecutive days differ and
 * every K consecutive days show each variant once. The other variants are removed from the page
 * before MathJax runs, so only the shown one is typeset and its figure loaded. A typed answer is
 * judged by answer.js (the build puts it inline below).
 */
(function () {
  "use strict";
  /* quizgen: answer.js */
  var DAY = 86400000, ROLLOVER = 4 * 3600000;

  function ankiDay(now) {
    var offset = new Date(now).getTimezoneOffset() * 60000;
    return Math.floor((now - offset - ROLLOVER) / DAY);
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

  /* ---- the card ---- */

  function show(root) {
    if (root.getAttribute("data-shown")) return;
    var lists = root.querySelectorAll(".qz-vs"), first = lists[0], count = 0, n, k;
    if (!first) return;
    for (n = 0; n < first.children.length; n++) if (first.children[n].classList.contains("qz-v")) count++;
    if (!count) return;
    var key = parseInt(root.getAttribute("data-key"), 10) || 0;
    var day = ankiDay(Date.now());
    var v = String(variantOf(key, count, day));
    for (k = 0; k < lists.length; k++) {
      var kids = Array.prototype.slice.call(lists[k].children);
      for (n = 0; n < kids.length; n++) if (kids[n].getAttribute("data-v") !== v) lists[k].removeChild(kids[n]);
    }
    root.setAttribute("data-shown", v);
    root.setAttribute("data-day", String(day));
    typing(root, key, v, first.firstElementChild);
  }

  function typing(root, key, v, question) {
    var box = root.querySelector(".qz-type"), result = root.querySelector(".qz-checked");
    var canType = question && question.hasAttribute("data-answer") && typeof window.pycmd === "function";
    if (box && canType) {
      var input = box.querySelector("input");
      box.hidden = false;
      window.qzSkillTyped = { key: key, v: v, text: "" };
      input.addEventListener("input", function () { window.qzSkillTyped = { key: key, v: v, text: input.value }; });
      input.addEventListener("keydown", function (e) { if (e.key === "Enter") { e.preventDefault(); window.pycmd("ans"); } });
      setTimeout(function () { input.focus(); }, 0);
    }
    if (result) {
      var typed = window.qzSkillTyped;
      window.qzSkillTyped = null;
      if (!typed || typed.key !== key || typed.v !== v || !question || !/\S/.test(typed.text)) return;
      var words = root.querySelector(".qz-words span") || document.createElement("span");
      var verdict = qzAnswer.check(typed.text, question.getAttribute("data-answer"), question.getAttribute("data-kind"),
                                question.getAttribute("data-tol"), question.getAttribute("data-unit"));
      result.textContent = (words.getAttribute("data-typed") || "") + ": " + typed.text + " \u2192 " +
        (verdict === "right" ? "\u2713 " : verdict === "wrong" ? "\u2717 " : "? ") + (words.getAttribute("data-" + verdict) || verdict);
      result.className = "qz-checked " + (verdict === "right" ? "qz-right" : "qz-wrong-typed");
      result.setAttribute("data-verdict", verdict);
      result.hidden = false;
    }
  }

  window.qzSkill = { day: ankiDay, variantOf: variantOf };
  window.qzAnswer = qzAnswer;       /* the desktop keeps this page across the flip anyway */
  var roots = document.querySelectorAll(".qz-skill[data-key]");
  for (var r = 0; r < roots.length; r++) show(roots[r]);
})();
