// The page's accessibility tree as a snapshot needs it, computed in the page itself (in the
// server's isolated world, which the page's scripts cannot see or change). The answer is the
// document's name and the tree, one node a line in document order:
//
//	depth TAB role TAB name TAB value TAB number [TAB key=value]...
//
// with role empty for a run of text (its text is the name). Element numbers (given to what may
// be acted on) stay with their element for the document's life; __mcp.el finds an element by
// its number, and __mcp.doc names the document. Tabs and line ends inside strings become spaces.
(() => {
  const S = globalThis.__mcp ||= {
    doc: performance.timeOrigin.toString(36) + '.' + Math.random().toString(36).slice(2),
    next: 1, ids: new WeakMap(), els: new Map(),
    el(id) { const r = this.els.get(id); return (r && r.deref()) || null; },
  };
  const idOf = el => {
    let id = S.ids.get(el);
    if (!id) {
      id = S.next++;
      S.ids.set(el, id);
      S.els.set(id, new WeakRef(el));
    }
    return id;
  };
  if (S.els.size > 4 * (S.live || 1000)) { // drop the numbers of elements that are gone
    for (const [id, ref] of S.els) if (!ref.deref()) S.els.delete(id);
  }

  const skip = new Set(['script', 'style', 'noscript', 'template', 'head', 'title', 'meta', 'link', 'base', 'param', 'source', 'track', 'datalist']);
  const landmarkInside = 'article, aside, main, nav, section, [role=article], [role=complementary], [role=main], [role=navigation], [role=region]';
  const inputRoles = {
    button: 'button', submit: 'button', reset: 'button', image: 'button', file: 'button',
    checkbox: 'checkbox', radio: 'radio', range: 'slider', number: 'spinbutton', search: 'searchbox',
    date: 'date', time: 'time', 'datetime-local': 'datetime', month: 'month', week: 'week', color: 'color',
  };
  const tagRoles = {
    button: 'button', h1: 'heading', h2: 'heading', h3: 'heading', h4: 'heading', h5: 'heading', h6: 'heading',
    ul: 'list', ol: 'list', menu: 'list', li: 'listitem', dl: 'DescriptionList', dt: 'term', dd: 'definition',
    table: 'table', tr: 'row', thead: 'rowgroup', tbody: 'rowgroup', tfoot: 'rowgroup', caption: 'caption',
    nav: 'navigation', main: 'main', aside: 'complementary', form: 'form', search: 'search', p: 'paragraph',
    figure: 'figure', blockquote: 'blockquote', pre: 'Pre', code: 'code', strong: 'strong', b: 'strong', em: 'emphasis',
    i: 'emphasis', mark: 'mark', time: 'Time', sup: 'superscript', sub: 'subscript', label: 'LabelText',
    fieldset: 'group', legend: 'Legend', hr: 'separator', textarea: 'textbox', progress: 'progressbar',
    meter: 'meter', output: 'status', dialog: 'dialog', details: 'group', summary: 'DisclosureTriangle',
    iframe: 'Iframe', frame: 'Iframe', article: 'article', address: 'group', optgroup: 'group', option: 'option',
    svg: 'img', abbr: 'Abbr', ins: 'insertion', del: 'deletion',
  };
  // Roles whose name is their content (when nothing names them otherwise).
  const fromContent = new Set(['button', 'link', 'heading', 'tab', 'option', 'menuitem', 'menuitemcheckbox',
    'menuitemradio', 'treeitem', 'checkbox', 'radio', 'switch', 'tooltip', 'DisclosureTriangle', 'Legend', 'caption']);
  const blockTags = new Set(['div', 'p', 'li', 'tr', 'td', 'th', 'br', 'section', 'article', 'header', 'footer', 'ul', 'ol', 'table', 'h1', 'h2', 'h3', 'h4', 'h5', 'h6']);
  const squash = s => s.replace(/\s+/g, ' ').trim();
  const hidden = el => el.getAttribute('aria-hidden') === 'true' || !el.checkVisibility() && getComputedStyle(el).display !== 'contents';

  function role(el, grid) {
    const explicit = el.hasAttribute('role') && (el.getAttribute('role') || '').trim().split(/\s+/)[0];
    if (explicit) return explicit === 'presentation' || explicit === 'none' ? 'none' : explicit;
    const tag = el.localName;
    switch (tag) {
      case 'a': case 'area': return el.hasAttribute('href') ? 'link' : 'generic';
      case 'input': {
        const type = (el.getAttribute('type') || 'text').toLowerCase();
        if (type === 'hidden') return '';
        if (type === 'text' || type === 'email' || type === 'tel' || type === 'url' || type === '') return el.list ? 'combobox' : 'textbox';
        return inputRoles[type] || 'textbox';
      }
      case 'select': return el.multiple || el.size > 1 ? 'listbox' : 'combobox';
      case 'img': return el.getAttribute('alt') === '' ? 'none' : 'img';
      case 'header': case 'footer':
        if (el.parentElement && el.parentElement.closest(landmarkInside)) return 'generic';
        return tag === 'header' ? 'banner' : 'contentinfo';
      case 'section': return el.hasAttribute('aria-label') || el.hasAttribute('aria-labelledby') || el.hasAttribute('title') ? 'region' : 'Section';
      case 'th': return el.getAttribute('scope') === 'row' || (el.parentElement && el.parentElement.firstElementChild === el && el.parentElement.parentElement && el.parentElement.parentElement.localName === 'tbody') ? 'rowheader' : 'columnheader';
      case 'td': return grid ? 'gridcell' : 'cell';
    }
    if (tag in tagRoles) return tagRoles[tag];
    if (el.isContentEditable && !(el.parentElement && el.parentElement.isContentEditable)) return 'textbox';
    return 'generic';
  }

  // text is an element's text as a name: its visible text, with the names of images and the
  // values of fields in it, at most 1000 characters.
  function text(node, out) {
    for (const k of kids(node)) {
      if (out.n > 1000) return;
      if (k.nodeType === 3) { out.s += k.data; out.n += k.data.length; continue; }
      if (k.nodeType !== 1 || k === out.self || skip.has(k.localName) || hidden(k)) continue;
      const label = k.getAttribute('aria-label');
      if (label && label.trim()) { out.s += ' ' + label + ' '; continue; }
      const tag = k.localName;
      if (tag === 'img' || (tag === 'input' && k.type === 'image')) { out.s += ' ' + (k.getAttribute('alt') || '') + ' '; continue; }
      if (tag === 'input' || tag === 'textarea') {
        const r = role(k);
        if (r === 'button') out.s += ' ' + nameOf(k, r) + ' ';
        else if (r !== 'checkbox' && r !== 'radio' && k.type !== 'password') out.s += ' ' + k.value + ' ';
        continue;
      }
      if (tag === 'select') { out.s += ' ' + Array.from(k.selectedOptions, o => o.label).join(' ') + ' '; continue; }
      const block = blockTags.has(tag);
      if (block) out.s += ' ';
      text(k, out);
      if (block) out.s += ' ';
    }
  }
  // textOf is el's text; self, the element being named, leaves itself out of it.
  const textOf = (el, self) => { const out = {s: '', n: 0, self}; text(el, out); return squash(out.s); };
  const byIds = (el, attr) => {
    const ids = (el.getAttribute(attr) || '').trim();
    if (!ids) return '';
    const root = el.getRootNode();
    return squash(ids.split(/\s+/).map(id => {
      const t = root.getElementById ? root.getElementById(id) : document.getElementById(id);
      return t ? (t.getAttribute('aria-label') || textOf(t)) : '';
    }).join(' '));
  };

  function nameOf(el, r) {
    let n = byIds(el, 'aria-labelledby');
    if (n) return n;
    n = squash(el.getAttribute('aria-label') || '');
    if (n) return n;
    const tag = el.localName;
    if (tag === 'input' || tag === 'textarea' || tag === 'select' || tag === 'meter' || tag === 'progress' || tag === 'output') {
      const type = el.type;
      if (tag === 'input' && (type === 'submit' || type === 'reset' || type === 'button')) {
        return el.value || (type === 'submit' ? 'Submit' : type === 'reset' ? 'Reset' : '');
      }
      if (tag === 'input' && type === 'image') return el.getAttribute('alt') || el.value || 'Submit';
      if (el.labels && el.labels.length) {
        n = squash(Array.from(el.labels, l => textOf(l, el)).join(' '));
        if (n) return n;
      }
      return squash(el.getAttribute('title') || el.getAttribute('placeholder') || '');
    }
    if (tag === 'img' || tag === 'area') return squash(el.getAttribute('alt') || el.getAttribute('title') || '');
    if (tag === 'fieldset') { const l = el.querySelector(':scope > legend'); if (l) return textOf(l); }
    if (tag === 'table') { const c = el.querySelector(':scope > caption'); if (c) return textOf(c); }
    if (tag === 'figure') { const c = el.querySelector(':scope > figcaption'); if (c) return textOf(c); }
    if (tag === 'iframe' || tag === 'frame') return squash(el.getAttribute('title') || '');
    if (tag === 'svg') { const t = el.querySelector(':scope > title'); return t ? squash(t.textContent) : ''; }
    if (fromContent.has(r)) { n = textOf(el); if (n) return n; }
    return squash(el.getAttribute('title') || '');
  }

  function valueOf(el, r) {
    const tag = el.localName;
    if (tag === 'input' || tag === 'textarea') {
      if (el.type === 'checkbox' || el.type === 'radio' || el.type === 'file' || r === 'button') return '';
      if (el.type === 'password') return el.value ? '••••••••' : '';
      return el.value;
    }
    if (tag === 'select') return el.multiple ? '' : Array.from(el.selectedOptions, o => o.label).join(', ');
    if (r === 'textbox' && el.isContentEditable) return squash(el.innerText).slice(0, 2000);
    return el.getAttribute('aria-valuetext') || el.getAttribute('aria-valuenow') || '';
  }

  // props lists an element's states as "key=value" strings.
  function props(el, r) {
    const p = [];
    const tag = el.localName;
    const attrs = el.attributes.length > 0;
    if (r === 'heading') p.push('level=' + ((attrs && el.getAttribute('aria-level')) || tag.slice(1)));
    if (r === 'link' && el.href) p.push('url=' + el.href);
    if (tag === 'input' && (el.type === 'checkbox' || el.type === 'radio')) p.push('checked=' + (el.indeterminate ? 'mixed' : el.checked));
    else if (attrs && el.hasAttribute('aria-checked')) p.push('checked=' + el.getAttribute('aria-checked'));
    if (tag === 'option') p.push('selected=' + el.selected);
    if (tag === 'summary' && el.parentElement && el.parentElement.localName === 'details') p.push('expanded=' + el.parentElement.open);
    let disabled = false;
    if (attrs) {
      for (const a of ['pressed', 'selected', 'expanded']) {
        const v = el.getAttribute('aria-' + a);
        if (v !== null && !(a === 'selected' && tag === 'option')) p.push(a + '=' + v);
      }
      disabled = el.getAttribute('aria-disabled') === 'true';
    }
    if (!disabled && (tag === 'button' || tag === 'input' || tag === 'select' || tag === 'textarea' || tag === 'option' || tag === 'fieldset')) disabled = el.matches(':disabled');
    if (disabled) p.push('disabled=true');
    else if ((el.tabIndex >= 0 || attrs && el.hasAttribute('tabindex')) && !(tag === 'a' && !el.hasAttribute('href'))) p.push('focusable=true');
    if (tag === 'input' && el.type === 'password') p.push('password=true');
    return p;
  }

  function kids(n) {
    if (n.nodeType === 1) {
      if (n.shadowRoot) return n.shadowRoot.childNodes;
      if (n.localName === 'slot') { const a = n.assignedNodes({flatten: true}); if (a.length) return a; }
    }
    return n.childNodes;
  }

  // Roles a model acts on, and frames: their elements get numbers (the server gives refs).
  const actionable = new Set(['button', 'link', 'textbox', 'searchbox', 'checkbox', 'radio', 'combobox', 'listbox',
    'option', 'menuitem', 'menuitemcheckbox', 'menuitemradio', 'tab', 'switch', 'slider', 'spinbutton', 'treeitem',
    'date', 'time', 'datetime', 'month', 'week', 'color', 'DisclosureTriangle', 'Iframe']);
  // Wrappers: no name or value is worth computing for them.
  const plain = new Set(['generic', 'none', 'paragraph', 'Section', 'rowgroup', 'row', 'cell', 'gridcell', 'list', 'listitem', 'strong',
    'emphasis', 'code', 'mark', 'superscript', 'subscript', 'Pre', 'LabelText', 'DescriptionList', 'term', 'definition',
    'blockquote', 'insertion', 'deletion', 'Abbr', 'Time']);

  const clean = s => s.replace(/[\t\n\r]/g, ' ');
  const lines = [];
  let count = 0;
  // element writes the line of el and walks its children.
  function element(el, depth, grid) {
    const r = role(el, grid);
    if (!r) return;
    let name = '', value = '';
    if (!plain.has(r)) {
      name = nameOf(el, r);
      if (name.length > 1000) name = name.slice(0, 1000);
      value = valueOf(el, r);
      if (value.length > 2000) value = value.slice(0, 2000);
    }
    const p = props(el, r);
    const focusable = p.length > 0 && p[p.length - 1] === 'focusable=true';
    const id = focusable || actionable.has(r) ? idOf(el) : '';
    let line = depth + '\t' + r + '\t' + clean(name) + '\t' + clean(value) + '\t' + id;
    for (const kv of p) line += '\t' + clean(kv);
    lines.push(line);
    if (el.localName === 'select') {
      for (const o of el.options) {
        lines.push((depth + 1) + '\toption\t' + clean(squash(o.label)) + '\t\t' + idOf(o) + '\tselected=' + o.selected + (o.disabled ? '\tdisabled=true' : ''));
      }
    } else if (r !== 'Iframe' && el.localName !== 'svg') {
      walk(el, depth + 1, true, grid || r === 'grid' || r === 'treegrid');
    }
  }
  function walk(n, depth, shown, grid) {
    for (const k of kids(n)) {
      if (k.nodeType === 3) {
        if (shown) {
          const t = squash(k.data);
          if (t) lines.push(depth + '\t\t' + t);
        }
        continue;
      }
      if (k.nodeType !== 1 || skip.has(k.localName) || k.getAttribute('aria-hidden') === 'true') continue;
      count++;
      if (!k.checkVisibility({visibilityProperty: true})) {
        if (k.checkVisibility()) { walk(k, depth, false, grid); continue; } // visibility: hidden
        if (getComputedStyle(k).display !== 'contents') continue; // display: none
      }
      if (k.localName === 'br') { lines.push(depth + '\tbr\t\t\t'); continue; }
      element(k, depth, grid);
    }
  }
  walk(document.documentElement || document, 0, true, false);
  S.live = count;
  return S.doc + '\n' + clean(document.title) + '\n' + lines.join('\n');
})()
