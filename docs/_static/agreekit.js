// agreekit: let long code in table cells (dotted names, calls with arguments, paths) and long API names in
// page titles and the navigation wrap at their natural break points (after . _ / , ( =) instead of widening
// the table or breaking mid-word.
document.addEventListener("DOMContentLoaded", () => {
  const breakAfter = /([._/,(=])(?=[^\s])/g;
  for (const code of document.querySelectorAll(
      ".bd-article table code, .bd-article table span.pre, .bd-article h1, .bd-docs-nav a, .bd-breadcrumbs li")) {
    const walker = document.createTreeWalker(code, NodeFilter.SHOW_TEXT);
    const texts = [];
    for (let n = walker.nextNode(); n; n = walker.nextNode()) texts.push(n);
    for (const text of texts) {
      const parts = text.nodeValue.split(breakAfter);
      if (parts.length < 2) continue;
      const frag = document.createDocumentFragment();
      let buf = "";
      for (const part of parts) {
        buf += part;
        if (/^[._/,(=]$/.test(part)) {
          frag.append(buf, document.createElement("wbr"));
          buf = "";
        }
      }
      frag.append(buf);
      text.replaceWith(frag);
    }
  }
});
