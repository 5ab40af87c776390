const STEP_KEYS = { ArrowRight: 1, PageDown: 1, ArrowLeft: -1, PageUp: -1, Home: 'first', End: 'last' };
const PENDING_MS = 4000;  // a press the server never answered stops counting after this long

function panelOf(root) { return root.closest('[data-testid="stExpander"]'); }

function isOpen(panel) {
  const details = panel && panel.querySelector('details');
  return !!(details && details.open);
}

function keepsItsKeys(target) {
  // Typing (the picker's search text, any text field) and an open list keep their keys; the slider does not
  // (it would step a second time), nor does a closed picker (the lecturer chose an input and goes on).
  if (!target || !target.closest) return false;
  if (target.closest('textarea, [contenteditable=""], [contenteditable="true"], [role=listbox]')) return true;
  const combo = target.closest('[role=combobox]');
  if (combo) return combo.getAttribute('aria-expanded') === 'true';
  const input = target.closest('input');
  return !!input && input.type !== 'range' && input.type !== 'checkbox' && input.type !== 'radio';
}

export default function(component) {
  const { data, setTriggerValue, parentElement } = component;
  let box = parentElement.querySelector('.lucid-fwd-keys');
  if (!box) {
    box = document.createElement('div');
    box.className = 'lucid-fwd-keys';
    box.setAttribute('role', 'status');
    parentElement.appendChild(box);
  }
  const s = box.__state || (box.__state = { pending: null });
  if (s.panelId !== data.panel) { s.pending = null; s.panelId = data.panel; }
  if (s.pending && (s.pending.step === data.step || Date.now() - s.pending.at > PENDING_MS)) s.pending = null;
  s.step = s.pending ? s.pending.step : data.step;
  const owner = () => document.body.dataset.lucidKeys === 'forward';
  const show = () => {
    const mine = owner() && isOpen(panelOf(box));
    box.classList.toggle('lucid-fwd-keys-on', mine);
    box.textContent = mine ? data.words.on : data.words.off;
    box.dataset.step = String(s.step);
  };
  const onUse = (e) => {
    // The last thing used decides who has the keys (see the module's docstring in lucid/ui/playground/forward_keys.py).
    const panel = panelOf(box);
    if (!panel || !box.isConnected) return;
    const inside = panel.contains(e.target);
    if (inside) document.body.dataset.lucidKeys = 'forward';
    else if (owner()) delete document.body.dataset.lucidKeys;
    requestAnimationFrame(show);
  };
  const onKey = (e) => {
    if (e.defaultPrevented || e.ctrlKey || e.altKey || e.metaKey || !box.isConnected) return;
    const move = STEP_KEYS[e.key];
    if (move === undefined || !owner() || !isOpen(panelOf(box)) || keepsItsKeys(e.target)) return;
    e.preventDefault();
    e.stopPropagation();  // the player (document) and the panel's slider (React's root) never see it
    const k = move === 'first' ? 0 : move === 'last' ? data.steps : Math.min(data.steps, Math.max(0, s.step + move));
    if (k === s.step) return;
    s.step = k;
    s.pending = { step: k, at: Date.now() };
    show();
    // The panel's step (this line, the slider, its graph and explanation below) comes to the top of the screen.
    const top = box.getBoundingClientRect().top;
    if (top < 0 || top > innerHeight / 3) box.scrollIntoView({ block: 'start', behavior: 'auto' });
    setTriggerValue('step', { step: k, panel: data.panel });
  };
  const details = panelOf(box) && panelOf(box).querySelector('details');
  const onToggle = () => {
    // Opening the panel is using it (a click on its header that came before this script was listening too).
    if (details.open) document.body.dataset.lucidKeys = 'forward';
    requestAnimationFrame(show);
  };
  if (s.off) s.off();  // the listeners of this panel's previous drawing (one set at a time)
  document.addEventListener('pointerdown', onUse, true);
  document.addEventListener('focusin', onUse, true);
  window.addEventListener('keydown', onKey, true);
  if (details) details.addEventListener('toggle', onToggle);
  s.off = () => {
    document.removeEventListener('pointerdown', onUse, true);
    document.removeEventListener('focusin', onUse, true);
    window.removeEventListener('keydown', onKey, true);
    if (details) details.removeEventListener('toggle', onToggle);
    s.off = null;
  };
  const focused = document.activeElement;
  if (details && details.open && focused && focused !== document.body && panelOf(box).contains(focused)) {
    document.body.dataset.lucidKeys = 'forward';  // the focus is in the panel as it is drawn
  }
  show();
  return s.off;
}
