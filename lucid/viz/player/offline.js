// The offline host: the player inside ONE saved HTML file (lucid.notebook.html_file.save_html), with no server,
// no kernel and no network. Appended to the player's module (lucid.viz.player.script), so ``mount`` and ``el``
// are in scope. It reads the file's data (the JSON element #lucid-data: the notebook player's data, the node
// facts per node and per step where they change, the box note), mounts the player in #lucid-offline, and
// answers a click on a node from those facts, kept in step with the step on screen. The facts are HTML that
// Python escaped (lucid.notebook.widget.facts_html); the names in the data are never parsed as markup.
(() => {
  const source = document.getElementById('lucid-data');
  const box = document.getElementById('lucid-offline');
  if (!source || !box) return;
  const file = JSON.parse(source.textContent);
  const playerBox = el('div', { class: 'lucid-widget-player' });
  const hint = el('p', { class: 'lucid-offline-hint' }, file.hint || '');
  const facts = el('div', { class: 'lucid-facts', 'aria-live': 'polite' });
  box.append(playerBox, hint, facts);
  let picked = null;  // the node whose facts are shown

  const factsAt = (node, step) => {
    // A tensor (t<k>) or the op that made it (op<k>): its facts as they stand after trace step ``step``.
    const m = /^(?:t|op)([0-9]{1,7})$/.exec(node);
    const list = m && Object.prototype.hasOwnProperty.call(file.facts, 't' + m[1]) ? file.facts['t' + m[1]] : null;
    if (!list) return null;
    let text = null;
    for (const [from, i] of list) {
      if (from > step) break;
      text = file.texts[i];
    }
    return text;
  };
  const showFacts = (node, step) => {
    if (/^g[0-9]{1,7}$/.test(node)) {
      facts.innerHTML = file.box;
      return;
    }
    const text = factsAt(node, step);
    if (typeof text === 'string') facts.innerHTML = text;
  };
  const trigger = (name, value) => {
    if (name !== 'node' || !value || typeof value.node !== 'string') return;
    picked = value.node;
    showFacts(value.node, value.step);
  };
  const onStep = (t) => { if (picked && !/^g/.test(picked)) showFacts(picked, t); };
  mount(playerBox, file.player, trigger, { onStep });

  // The page is the player's: the keys step it from anywhere on the page, not only while it has the focus
  // (a presenter's clicker, a slide in an <iframe> once clicked). Keys aimed at a control stay that control's.
  const root = playerBox.querySelector('.lucid-player');
  document.addEventListener('keydown', (e) => {
    if (!root || e.defaultPrevented || root.contains(e.target)) return;
    if (e.target !== document.body && e.target !== document.documentElement) return;
    const copy = new KeyboardEvent('keydown', { key: e.key, code: e.code, bubbles: true, cancelable: true,
                                                shiftKey: e.shiftKey });
    root.dispatchEvent(copy);
    if (copy.defaultPrevented) e.preventDefault();
  });
})();
