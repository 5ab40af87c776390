"""The clicker's keys for the Forward-mode panel: →/PageDown, ←/PageUp, Home/End step its tangent.

The backward player (``lucid.viz.player``) listens to the keys on the whole page, so a presenter's clicker
works wherever the focus is. The Forward-mode panel sits under it on the same page, and a page has one
clicker, so one of the two owns the keys at a time. The rule:

- **The panel owns the keys while it is open and was the last thing the lecturer used**: a click, a tap or a
  focus (Tab) anywhere inside its expander, its header included, hands the keys to it; a click or a focus
  anywhere else on the page (the graph, the player's bar, the editor) hands them back to the player.
- Folding the panel gives the keys back at once: a closed panel never takes a key.
- A page that has never touched the panel behaves as before: the player has every key.

While the panel owns the keys this component takes them first (on the window, in the capture phase) and stops
them there, so neither the player nor the panel's own slider (which would move a second time) sees them; text
fields and an open list (the input picker while choosing) keep their keys. A line in the panel says who has
the keys, and a press brings it to the top of the screen. Each press counts the step in the browser at once
and asks the server for that step (``on_step``): the server checks the value (``step_event``) and sets the
panel's slider to it before the rerun draws the panel, so the slider, the graph and the explanation all show
the new step. Presses faster than the reruns count on from the last step asked for, and a step from another
input's trace (a press still in flight when the input changed) is dropped by its ``panel`` id.
"""
from __future__ import annotations

from collections.abc import Callable

import streamlit as st

from lucid.i18n import _
from lucid.ui.playground.keys import keys

_JS = r"""
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
"""

_CSS = """
.lucid-fwd-keys { font-size: 0.8rem; color: #6B6B6B; padding: 0.1rem 0; scroll-margin-top: 5rem; }
.lucid-fwd-keys.lucid-fwd-keys-on { color: #1A5E20; font-weight: 600; }
"""

_component: list = []


def step_event(value: object, *, panel: str, steps: int) -> int | None:
    """The step a key press asks for, or None when the event is not one this panel sent for this trace.

    The value comes from the browser, so it is checked like any other input: a dict with an ``int`` step
    (not a bool) between 0 and ``steps``, made for ``panel`` (the slider it steps).
    """
    if not isinstance(value, dict) or value.get("panel") != panel:
        return None
    step = value.get("step")
    if isinstance(step, bool) or not isinstance(step, int) or not 0 <= step <= steps:
        return None
    return step


def forward_keys(key: str, *, slider_key: str, step: int, steps: int) -> None:
    """Let the clicker's keys step the slider ``slider_key`` (0..``steps``, now at ``step``); see the module.

    Call it inside the panel's expander, before the slider is drawn (the press's step is set in the event's
    callback, which runs before the script).
    """
    if not _component:
        _component.append(st.components.v2.component("lucid_forward_keys", js=_JS, css=_CSS, isolate_styles=False))
    component_key = keys(key).forward_keys

    def pressed() -> None:
        try:
            state = st.session_state.get(component_key)
        except (RecursionError, ValueError, TypeError):  # a crafted component state Streamlit cannot read
            return
        asked = step_event(state.get("step") if isinstance(state, dict) else None, panel=slider_key, steps=steps)
        if asked is not None:
            st.session_state[slider_key] = asked

    on_step: Callable[[], None] = pressed
    words = {"on": _("⌨ The clicker's keys step this panel (→ / ←, Home / End). Click the graph above to give "
                     "them back to the player."),
             "off": _("⌨ Click in this panel to step it with the clicker's keys.")}
    _component[0](key=component_key, data={"panel": slider_key, "step": int(step), "steps": int(steps),
                                           "words": words}, on_step_change=on_step)
