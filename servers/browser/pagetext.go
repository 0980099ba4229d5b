package main

// markdownJS is a JavaScript function (run in the page) that returns the main content of the
// page, or of the element it is given, as Markdown. Without an element it picks the content the
// way readability tools do: the <main>/<article> with the most text, else the container that
// holds the most paragraph text with the fewest links; navigation, asides, footers, forms and
// hidden elements are left out; links, emphasis, lists, tables, code and images' alt text stay.
const markdownJS = `function(scope) {
  const SKIP = new Set(['SCRIPT','STYLE','NOSCRIPT','TEMPLATE','svg','SVG','CANVAS','IFRAME','BUTTON','INPUT','SELECT','TEXTAREA','FORM','NAV','FOOTER','ASIDE','DIALOG']);
  const BLOCK = /^(P|DIV|SECTION|ARTICLE|MAIN|HEADER|H[1-6]|UL|OL|LI|PRE|BLOCKQUOTE|TABLE|FIGURE|FIGCAPTION|DL|DT|DD|HR|ADDRESS|DETAILS|SUMMARY)$/;
  const visible = el => !el.checkVisibility || el.checkVisibility();
  const squash = s => s.replace(/\s+/g, ' ');
  const linkDensity = el => {
    const total = (el.innerText || '').length || 1;
    let l = 0;
    for (const a of el.querySelectorAll('a')) l += (a.innerText || '').length;
    return l / total;
  };
  const pickMain = () => {
    let best = null, bestLen = 0;
    for (const c of document.querySelectorAll('main, article, [role=main]')) {
      const l = (c.innerText || '').length;
      if (l > bestLen) { best = c; bestLen = l; }
    }
    if (best && bestLen > 200) return best;
    const scores = new Map();
    for (const p of document.querySelectorAll('p, pre, blockquote, li, td')) {
      const t = (p.innerText || '').trim();
      if (t.length < 25) continue;
      const s = 1 + Math.min(t.length / 100, 3) + (t.split(',').length - 1) * 0.1;
      let el = p.parentElement;
      for (let d = 1; el && d <= 3; d++, el = el.parentElement) scores.set(el, (scores.get(el) || 0) + s / d);
    }
    let top = null, ts = 0;
    for (const [el, s] of scores) {
      const adj = s * (1 - linkDensity(el));
      if (adj > ts) { ts = adj; top = el; }
    }
    return top || document.body;
  };
  const inline = n => {
    if (n.nodeType === 3) return squash(n.nodeValue);
    if (n.nodeType !== 1 || SKIP.has(n.tagName) || !visible(n)) return '';
    const tag = n.tagName;
    if (tag === 'BR') return '\n';
    if (tag === 'IMG') {
      const alt = (n.alt || '').trim();
      return alt ? '![' + alt + ']' + (n.src && !n.src.startsWith('data:') ? '(' + n.src + ')' : '') : '';
    }
    let s = '';
    for (const c of n.childNodes) s += inline(c);
    const t = s.trim();
    if (!t) return s;
    if (tag === 'A' && n.href && !n.href.startsWith('javascript:')) return '[' + t + '](' + n.href + ')';
    if (tag === 'STRONG' || tag === 'B') return '**' + t + '**';
    if (tag === 'EM' || tag === 'I') return '*' + t + '*';
    if (tag === 'CODE') return '` + "`" + `' + t + '` + "`" + `';
    return s;
  };
  let out = [];
  const walk = n => {
    let buf = '';
    const flush = () => {
      const t = buf.replace(/[ \t]+/g, ' ').replace(/ *\n */g, '\n').trim();
      if (t) out.push(t);
      buf = '';
    };
    for (const c of n.childNodes) {
      if (c.nodeType === 1 && (SKIP.has(c.tagName) || !visible(c))) continue;
      if (c.nodeType === 1 && BLOCK.test(c.tagName)) { flush(); block(c); }
      else buf += inline(c);
    }
    flush();
  };
  const nested = el => {
    const saved = out;
    out = [];
    walk(el);
    const t = out.join('\n');
    out = saved;
    return t;
  };
  const block = el => {
    const tag = el.tagName;
    if (/^H[1-6]$/.test(tag)) {
      const t = squash(inline(el)).trim();
      if (t) out.push('#'.repeat(+tag[1]) + ' ' + t);
      return;
    }
    if (tag === 'UL' || tag === 'OL') {
      const items = [];
      let i = 1;
      for (const li of el.children) {
        if (li.tagName !== 'LI' || !visible(li)) continue;
        const t = nested(li);
        if (t) items.push((tag === 'OL' ? (i++) + '. ' : '- ') + t.replace(/\n/g, '\n  '));
      }
      if (items.length) out.push(items.join('\n'));
      return;
    }
    if (tag === 'PRE') { out.push('` + "```" + `\n' + el.innerText.replace(/\n$/, '') + '\n` + "```" + `'); return; }
    if (tag === 'BLOCKQUOTE') { const t = nested(el); if (t) out.push('> ' + t.replace(/\n/g, '\n> ')); return; }
    if (tag === 'HR') { out.push('---'); return; }
    if (tag === 'TABLE') {
      const rows = [...el.rows].filter(visible);
      if (!rows.length) return;
      const lines = rows.map(r => '| ' + [...r.cells].map(c => squash(inline(c)).trim().replace(/\|/g, '\\|')).join(' | ') + ' |');
      lines.splice(1, 0, '|' + ' --- |'.repeat(rows[0].cells.length));
      out.push(lines.join('\n'));
      return;
    }
    walk(el);
  };
  const root = scope || pickMain();
  walk(root);
  let md = out.join('\n\n');
  if (!scope && !root.querySelector('h1') && document.title) md = '# ' + document.title + '\n\n' + md;
  return md;
}`
