"""The backward-pass player: the laid-out graph, its controls and the explanation, played in the browser.

A Streamlit v2 component (trusted inline JavaScript, no build step, no network)
receives one ``lucid.viz.animation.Animation`` payload per program and plays it
with no server round trip: First/Prev/Next/Last, the slider, the keys a
presenter's clicker sends (→/PageDown, ←/PageUp, Home/End, Space) and Play/Pause
(scheduled against a start time, so steps are evenly spaced) only swap the
looks of the few nodes and edges a step changes. The step is mirrored into the
page's URL (``?step=``) with ``history.replaceState``. A click on a node is the
one thing that goes back to the server: it reports ``{node, step}`` for the node
inspector.

Everything placed in the page is SVG that went through an XML serializer on the
server and explanation HTML that escapes user text (see ``lucid.viz.animation``).
The node receiving gradient (and the edge it flows along) is kept inside the
screen, below the sticky control bar; in Classroom mode the picture is never
drawn so small that the node text (names, values, gradients: the size most node text is set in) is
under ``min_text_px`` pixels high.
"""
from __future__ import annotations

import hashlib
import json
from collections.abc import Callable
from typing import Any

import streamlit as st

from lucid.viz.animation import Animation

try:  # the explanation fragment's own look (lucid.viz builds the HTML; the page adds the CSS)
    from lucid.viz.document import EXPLANATION_CSS
except ImportError:  # pragma: no cover - older lucid.viz without the HTML explanation
    EXPLANATION_CSS = ""

KEYS_HELP = ("Keys: → or Page Down: next step · ← or Page Up: previous · Home / End: first / last · "
             "Space: play / pause (not while typing in the editor)")

_JS = r"""
const PREFIX = 'lucid-player';

function el(tag, attrs, text) {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) e.setAttribute(k, v);
  if (text !== undefined) e.textContent = text;
  return e;
}

const ICONS = {
  first: 'M5 4h2v12H5zM16 4v12L8 10z',
  prev: 'M14 4v12L6 10z',
  next: 'M6 4v12l8-6z',
  last: 'M13 4h2v12h-2zM4 4v12l8-6z',
  play: 'M6 4v12l10-6z',
  pause: 'M5 4h4v12H5zM11 4h4v12h-4z',
};

function icon(name) {
  // Drawn shapes, not font glyphs: every projector's browser shows them.
  const ns = 'http://www.w3.org/2000/svg';
  const svg = document.createElementNS(ns, 'svg');
  svg.setAttribute('viewBox', '0 0 20 20');
  svg.setAttribute('aria-hidden', 'true');
  svg.setAttribute('class', 'lucid-icon');
  const path = document.createElementNS(ns, 'path');
  path.setAttribute('d', ICONS[name]);
  path.setAttribute('fill', 'currentColor');
  svg.appendChild(path);
  return svg;
}

function button(name, title) {
  const b = el('button', { type: 'button', class: 'lucid-btn', title: title, 'data-action': name.toLowerCase() });
  b.appendChild(icon(name.toLowerCase()));
  b.appendChild(el('span', { class: 'lucid-label' }, name));
  return b;
}

function build(parent) {
  const root = el('div', { class: PREFIX });
  const bar = el('div', { class: 'lucid-bar', role: 'toolbar', 'aria-label': 'Backward pass steps' });
  const buttons = {
    first: button('First', 'First step (Home)'),
    prev: button('Prev', 'Previous step (← or Page Up)'),
    next: button('Next', 'Next step (→ or Page Down)'),
    last: button('Last', 'Last step (End)'),
    play: button('Play', 'Play / pause (Space)'),
  };
  buttons.play.classList.add('lucid-primary');
  for (const b of Object.values(buttons)) bar.appendChild(b);
  const slider = el('input', { type: 'range', class: 'lucid-step', min: '0', max: '0', value: '0',
                               'aria-label': 'Step' });
  const label = el('span', { class: 'lucid-step-label', 'aria-live': 'polite' });
  const keys = el('span', { class: 'lucid-keys', tabindex: '0', role: 'note' }, '⌨ Keys');
  bar.append(slider, label, keys);
  const body = el('div', { class: 'lucid-body' });
  const host = el('div', { class: 'lucid-svg-host' });
  const expl = el('div', { class: 'lucid-expl', 'aria-live': 'polite' });
  const title = el('div', { class: 'lucid-expl-head' });
  const text = el('div', { class: 'lucid-expl-body' });
  expl.append(title, text);
  body.append(host, expl);
  root.append(bar, body);
  parent.appendChild(root);
  return { root, bar, buttons, slider, label, keys, host, expl, title, text };
}

function scroller(node) {
  for (let p = node.parentElement; p; p = p.parentElement) {
    const s = getComputedStyle(p);
    if (/(auto|scroll)/.test(s.overflowY) && p.scrollHeight > p.clientHeight + 1) return p;
  }
  return document.scrollingElement || document.documentElement;
}

function fit(ui, p) {
  ui.root.style.setProperty('--lucid-bar-h', ui.bar.offsetHeight + 'px');
  // "screen": fit the width and the screen height below the controls, but never shrink past a
  // readable scale (then the page scrolls) nor blow a tiny graph up; "width": fit the width only;
  // a number: that fixed scale. In Classroom mode node text never gets smaller than min_text_px.
  const data = p.data;
  const svg = ui.host.querySelector('svg');
  if (!svg) return;
  const w = parseFloat(svg.getAttribute('width')) * 4 / 3;
  const h = parseFloat(svg.getAttribute('height')) * 4 / 3;
  if (!(w > 0 && h > 0)) return;
  const width = ui.host.clientWidth || 800;
  const height = Math.max(320, window.innerHeight - data.reserve);
  let scale;
  if (typeof data.zoom === 'number') scale = data.zoom;
  else if (data.zoom === 'width') scale = Math.min(width / w, data.max_scale);
  else scale = Math.max(Math.min(width / w, height / h, data.max_scale), data.min_scale);
  if (data.min_text_px && p.minFont) scale = Math.max(scale, data.min_text_px / (p.minFont * 4 / 3));
  svg.style.width = Math.round(w * scale) + 'px';
  svg.style.height = Math.round(h * scale) + 'px';
}

function keepInView(ui, p, smooth) {
  // The node receiving gradient (with the edge it flows along when both fit) stays inside the
  // screen, below the sticky control bar, and inside the graph's own horizontal scroll.
  const step = p.step;
  const cur = p.current[step] && p.els[p.current[step]];
  if (!cur) return;
  let box = cur.getBoundingClientRect();
  const edge = p.edge[step] && p.els[p.edge[step]];
  const top = ui.bar.getBoundingClientRect().bottom + 8;
  const bottom = window.innerHeight - 8;
  const view = ui.host.getBoundingClientRect();
  if (edge) {
    const e = edge.getBoundingClientRect();
    const u = { top: Math.min(box.top, e.top), bottom: Math.max(box.bottom, e.bottom),
                left: Math.min(box.left, e.left), right: Math.max(box.right, e.right) };
    // With the edge only when both fit: a long edge across a wide (collapsed) graph must not push the
    // node itself out of the graph's horizontal scroll.
    if (u.bottom - u.top <= bottom - top && u.right - u.left <= view.width) box = u;
  }
  const behavior = smooth ? 'smooth' : 'auto';
  if (box.left < view.left || box.right > view.right) {
    const dx = box.left - view.left - Math.max(0, (view.width - (box.right - box.left)) / 2);
    ui.host.scrollBy({ left: dx, behavior });
  }
  if (box.top < top || box.bottom > bottom) {
    let dy = box.top - top - Math.max(0, (bottom - top - (box.bottom - box.top)) / 2);
    if (dy > 0 && ui.expl.offsetParent && getComputedStyle(ui.expl).position === 'sticky') {
      // The explanation sticks below the bar only while the graph's column reaches below it: do not
      // scroll further than that (unless the node itself would stay below the screen).
      const body = ui.root.querySelector('.lucid-body').getBoundingClientRect();
      const room = body.bottom - (top + ui.expl.offsetHeight + 8);
      dy = Math.max(Math.min(dy, room), box.bottom - bottom);
    }
    const s = scroller(ui.root);
    s.scrollBy({ top: dy, behavior });
  }
}

function settle(ui, p) {
  // The rest of the page may still be moving (an expander folding, fonts growing): look again.
  for (const ms of [0, 250, 800]) setTimeout(() => { if (ui.root.isConnected) keepInView(ui, p, false); }, ms);
}

function load(ui, p, data) {
  const anim = data.anim;
  p.animId = data.anim_id;
  p.variants = anim.variants;
  p.changes = anim.changes;
  p.current = anim.current;
  p.edge = anim.edge;
  p.titles = anim.titles;
  p.explanations = anim.explanations;
  p.n = anim.changes.length;
  // A collapsed graph steps box by box: step k shows the backward trace up to trace_steps[k].
  p.traceSteps = anim.trace_steps && anim.trace_steps.length ? anim.trace_steps : null;
  p.collapsed = !!anim.collapsed;
  ui.host.innerHTML = anim.svg;
  const svg = ui.host.querySelector('svg');
  if (svg) svg.style.display = 'inline-block';
  p.els = {};
  p.base = {};
  ui.host.querySelectorAll('g.node, g.edge').forEach((g) => { p.els[g.id] = g; });
  for (const [id] of p.variants) {
    const g = p.els[id];
    if (g && !(id in p.base)) p.base[id] = { cls: g.getAttribute('class'), html: inner(g) };
  }
  p.shown = new Map();
  p.step = 0;
  // The node text that carries names, values and gradients: the size most node text is set in
  // (the small kind/shape caption line is smaller and does not set the scale).
  const counts = new Map();
  ui.host.querySelectorAll('g.node text').forEach((t) => {
    const f = parseFloat(t.getAttribute('font-size'));
    if (f > 0) counts.set(f, (counts.get(f) || 0) + 1);
  });
  let body = 0, most = 0;
  for (const [f, c] of counts) if (c > most || (c === most && f < body)) { body = f; most = c; }
  p.minFont = body;
  ui.host.querySelectorAll('g.node').forEach((node) => {
    // t<k>/op<k>: a tensor or its op (the inspector); g<n>: a box or an open group's header (open/close it).
    if (/^(t|op)[0-9]+$/.test(node.id) || (p.collapsed && /^g[0-9]+$/.test(node.id))) {
      node.style.cursor = 'pointer';
      node.addEventListener('click', () => p.trigger('node', { node: node.id, step: traceOf(p, p.step) }));
    }
  });
  ui.slider.max = String(Math.max(p.n - 1, 0));
  ui.bar.style.display = p.n > 1 ? '' : 'none';
  ui.expl.style.display = p.n > 0 ? '' : 'none';
}

function traceOf(p, k) {
  // The step of the backward trace that player step k shows (what links and the server count in).
  return p.traceSteps ? p.traceSteps[Math.max(0, Math.min(k, p.traceSteps.length - 1))] : k;
}

function playerOf(p, t) {
  // The player step that shows trace step t: the first one whose run of trace steps reaches t.
  if (!p.traceSteps) return t;
  let lo = 0, hi = p.traceSteps.length - 1;
  while (lo < hi) { const mid = (lo + hi) >> 1; if (p.traceSteps[mid] < t) lo = mid + 1; else hi = mid; }
  return lo;
}

function inner(g) {
  let html = '';
  for (const c of g.children) if (c.tagName.toLowerCase() !== 'title') html += c.outerHTML;
  return html;
}

function setLook(g, cls, html) {
  for (const c of Array.from(g.children)) if (c.tagName.toLowerCase() !== 'title') c.remove();
  g.setAttribute('class', cls);
  g.insertAdjacentHTML('beforeend', html);
}

function show(ui, p, k, opts) {
  k = Math.max(0, Math.min(k, p.n - 1));
  if (p.n > 0) {
    const target = new Map();
    for (let i = 1; i <= k; i++) for (const v of p.changes[i]) target.set(p.variants[v][0], v);
    for (const [id, v] of p.shown) {
      if (!target.has(id)) { const b = p.base[id]; setLook(p.els[id], b.cls, b.html); }
    }
    for (const [id, v] of target) {
      if (p.shown.get(id) !== v) setLook(p.els[id], p.variants[v][1], p.variants[v][2]);
    }
    p.shown = target;
    ui.title.textContent = p.titles[k];
    ui.text.innerHTML = p.explanations[k];
  }
  p.step = k;
  ui.slider.value = String(k);
  ui.label.textContent = p.n > 0 ? `step ${k} of ${p.n - 1}` : '';
  ui.buttons.first.disabled = ui.buttons.prev.disabled = k <= 0;
  ui.buttons.next.disabled = ui.buttons.last.disabled = k >= p.n - 1;
  ui.root.dataset.step = String(k);
  ui.root.dataset.traceStep = String(traceOf(p, k));
  ui.host.dataset.frame = `${p.animId}:${k}`;
  if (p.data.share_url && !(opts && opts.noUrl)) urlStep(traceOf(p, k), p.data.program_id);
  if (!(opts && opts.noFollow)) keepInView(ui, p, false);
}

function urlStep(k, programId) {
  // The address bar always holds the step on screen, so the link can be shared as it is.
  // The tab keeps it per program too: a return through the menu arrives at an address without it.
  try { sessionStorage.setItem('lucid-step:' + programId, String(k)); } catch (e) { /* storage off */ }
  const url = new URL(window.location.href);
  if (url.searchParams.get('step') !== String(k)) {
    url.searchParams.set('step', String(k));
    window.history.replaceState(window.history.state, '', url.toString());
  }
}

function storedStep(programId, fallback) {
  let raw = null;
  try { raw = sessionStorage.getItem('lucid-step:' + programId); } catch (e) { raw = null; }
  return raw !== null && /^[0-9]+$/.test(raw) ? Number(raw) : fallback;
}

function setPlaying(ui, p, on) {
  if (p.timer) { clearTimeout(p.timer); p.timer = null; }
  p.playing = on && p.n > 1;
  const b = ui.buttons.play;
  b.querySelector('.lucid-label').textContent = p.playing ? 'Pause' : 'Play';
  b.querySelector('.lucid-icon path').setAttribute('d', ICONS[p.playing ? 'pause' : 'play']);
  ui.root.dataset.playing = p.playing ? '1' : '0';
  if (!p.playing) return;
  if (p.step >= p.n - 1) show(ui, p, 0);
  // Each step is due at start + i * interval: a late tick never delays the ones after it.
  const start = performance.now();
  const from = p.step;
  const interval = p.data.seconds * 1000;
  let i = 0;
  const tick = () => {
    if (!ui.root.isConnected || !p.playing) return;
    i += 1;
    show(ui, p, from + i);
    if (p.step >= p.n - 1) { setPlaying(ui, p, false); return; }
    p.timer = setTimeout(tick, Math.max(0, start + (i + 1) * interval - performance.now()));
  };
  p.timer = setTimeout(tick, interval);
}

const TEXT_INPUTS = /^(text|search|email|number|password|url|tel|date|datetime-local|month|time|week)$/;

function typing(target) {
  // Keys typed into the editor or any other text field (or aimed at another widget's slider or list)
  // belong to that field, never to the player.
  if (!target || !target.closest) return false;
  const fields = 'textarea, select, [contenteditable=""], [contenteditable="true"], [role=combobox], [role=listbox]';
  if (target.closest(fields)) return true;
  const slider = target.closest('[role=slider]');
  if (slider) return true;
  const input = target.closest('input');
  if (!input || input.classList.contains('lucid-step')) return false;
  return TEXT_INPUTS.test(input.type || 'text') || input.type === 'range';
}

export default function(component) {
  const { data, setTriggerValue, parentElement } = component;
  let root = parentElement.querySelector('.' + PREFIX);
  const ui = root ? root.__ui : build(parentElement);
  root = ui.root;
  root.__ui = ui;
  const p = root.__player || (root.__player = { step: 0, playing: false });
  p.trigger = setTriggerValue;
  const firstTime = p.animId === undefined;
  const before = p.data;
  p.data = data;
  ui.keys.title = data.keys_help;
  ui.keys.setAttribute('aria-label', data.keys_help);
  root.classList.toggle('lucid-classroom', !!data.classroom);
  root.classList.toggle('lucid-beside', !!data.beside);
  root.style.setProperty('--lucid-top', data.top + 'px');
  if (p.animId !== data.anim_id) {
    // Same program drawn another way (direction, options, a box opened): stay at the step on screen.
    // Steps cross the server boundary as steps of the backward trace; a collapsed drawing maps them.
    // Back on the page through the menu (``resume``): the step this tab last showed for the program.
    const keep = !firstTime && p.programId === data.program_id ? traceOf(p, p.step)
      : (firstTime && data.resume ? storedStep(data.program_id, data.step) : data.step);
    setPlaying(ui, p, false);
    load(ui, p, data);
    p.programId = data.program_id;
    fit(ui, p);
    // A fresh page keeps its editor in view, unless a link opens at a later step or a class is watching.
    const follow = !(firstTime && !data.follow_first && !data.classroom);
    show(ui, p, playerOf(p, keep), { noFollow: !follow });
    if (follow) settle(ui, p);
  } else {
    fit(ui, p);
    if (p.playing && before && before.seconds !== data.seconds) setPlaying(ui, p, true);
    if (before && (before.classroom !== data.classroom || before.zoom !== data.zoom)) settle(ui, p);
  }
  if (data.share_url && p.n > 0) {
    // A rerun that rewrote the URL from the server's side (e.g. a view option) may carry an older step.
    for (const ms of [0, 300, 1000]) {
      setTimeout(() => { if (root.isConnected) urlStep(traceOf(p, p.step), p.data.program_id); }, ms);
    }
  }
  const go = (k) => { setPlaying(ui, p, false); show(ui, p, k); };
  ui.buttons.first.onclick = () => go(0);
  ui.buttons.prev.onclick = () => go(p.step - 1);
  ui.buttons.next.onclick = () => go(p.step + 1);
  ui.buttons.last.onclick = () => go(p.n - 1);
  ui.buttons.play.onclick = () => setPlaying(ui, p, !p.playing);
  ui.slider.oninput = () => go(parseInt(ui.slider.value, 10) || 0);
  const onKey = (e) => {
    if (e.defaultPrevented || e.ctrlKey || e.altKey || e.metaKey || typing(e.target) || !root.isConnected) return;
    if (p.n <= 1) return;
    const onButton = e.target && e.target.closest && e.target.closest('button, a, [role=button]');
    let k = null;
    if (e.key === 'ArrowRight' || e.key === 'PageDown') k = p.step + 1;
    else if (e.key === 'ArrowLeft' || e.key === 'PageUp') k = p.step - 1;
    else if (e.key === 'Home') k = 0;
    else if (e.key === 'End') k = p.n - 1;
    else if ((e.key === ' ' || e.key === 'Spacebar') && !onButton) {
      e.preventDefault();
      setPlaying(ui, p, !p.playing);
      return;
    }
    if (k === null) return;
    e.preventDefault();
    go(k);
  };
  document.addEventListener('keydown', onKey);
  const onResize = () => fit(ui, p);
  window.addEventListener('resize', onResize);
  return () => {
    document.removeEventListener('keydown', onKey);
    window.removeEventListener('resize', onResize);
  };
}
"""

_CSS = """
.lucid-player { --lucid-top: 60px; --lucid-bar-h: 3.5rem; }
.lucid-player .lucid-bar {
  position: sticky; top: var(--lucid-top); z-index: 50; background: #FFFFFF;
  display: flex; flex-wrap: wrap; align-items: center; gap: 0.4rem;
  padding: 0.45rem 0; border-bottom: 1px solid #E6E6E6; margin-bottom: 0.5rem;
}
.lucid-player .lucid-btn {
  display: inline-flex; align-items: center; gap: 0.3rem; white-space: nowrap; min-width: max-content;
  flex: 0 0 auto; padding: 0.3rem 0.75rem; border: 1px solid rgba(49, 51, 63, 0.2); border-radius: 0.5rem;
  background: #FFFFFF; color: #31333F; font: inherit; font-size: 1rem; line-height: 1.4; cursor: pointer;
}
.lucid-player .lucid-btn:hover:not(:disabled) { border-color: #D55E00; color: #D55E00; }
.lucid-player .lucid-btn:disabled { opacity: 0.45; cursor: default; }
.lucid-player .lucid-btn.lucid-primary { background: #D55E00; border-color: #D55E00; color: #FFFFFF; }
.lucid-player .lucid-btn.lucid-primary:hover:not(:disabled) {
  background: #B34E00; border-color: #B34E00; color: #FFFFFF;
}
.lucid-player .lucid-icon { width: 0.9em; height: 0.9em; flex: 0 0 auto; }
.lucid-player .lucid-step { flex: 1 1 12rem; min-width: 8rem; accent-color: #D55E00; }
.lucid-player .lucid-step-label { white-space: nowrap; font-variant-numeric: tabular-nums; color: #555555; }
.lucid-player .lucid-keys { white-space: nowrap; color: #555555; cursor: help; border-bottom: 1px dotted #888888; }
.lucid-player .lucid-body { display: flex; flex-direction: column; gap: 1rem; align-items: flex-start; }
.lucid-player.lucid-beside .lucid-body { flex-direction: row; }
.lucid-player .lucid-svg-host { width: 100%; overflow-x: auto; text-align: center; }
.lucid-player.lucid-beside .lucid-svg-host { flex: 3 1 0; min-width: 0; }
.lucid-player.lucid-beside.lucid-classroom .lucid-svg-host { flex: 2 1 0; }
.lucid-player.lucid-beside.lucid-classroom .lucid-expl { flex: 1 1 0; }
.lucid-player .lucid-svg-host > svg { display: inline-block; }
.lucid-player .lucid-svg-host g.node:hover polygon, .lucid-player .lucid-svg-host g.node:hover path,
.lucid-player .lucid-svg-host g.node:hover ellipse { stroke-width: 3; }
.lucid-player .lucid-expl {
  width: 100%; box-sizing: border-box; border: 1px solid rgba(49, 51, 63, 0.2); border-radius: 0.5rem;
  padding: 0.75rem 1rem; background: #FFFFFF; overflow-y: auto;
}
.lucid-player.lucid-beside .lucid-expl {
  flex: 2 1 0; min-width: 0; position: sticky; top: calc(var(--lucid-top) + var(--lucid-bar-h, 3.5rem) + 8px);
  max-height: calc(100vh - var(--lucid-top) - var(--lucid-bar-h, 3.5rem) - 24px);
}
.lucid-player .lucid-expl-head { font-weight: 600; margin-bottom: 0.4rem; }
.lucid-player .lucid-expl-body { overflow-wrap: anywhere; }
.lucid-player .lucid-expl-body pre { white-space: pre; overflow-x: auto; }
"""

_CSS += EXPLANATION_CSS + """
.lucid-player .lgl-explain { font-size: 1rem; }
.lucid-player .lgl-heat, .lucid-player .lgl-values { font-size: 0.85rem; }
"""

_component: list = []


def sizing(classroom: bool) -> dict[str, float]:
    """Scale limits, the screen height kept for the controls above the graph, and the smallest node text."""
    if classroom:
        return {"min_scale": 0.9, "max_scale": 1.8, "reserve": 300, "min_text_px": 18}
    return {"min_scale": 0.7, "max_scale": 1.25, "reserve": 270, "min_text_px": 0}


def _player_component():  # registered on first use, from inside a script run
    if not _component:
        _component.append(st.components.v2.component("lucid_animation_player", js=_JS, css=_CSS,
                                                      isolate_styles=False))
    return _component[0]


def animation_id(anim: Animation) -> str:
    """A short id of an animation's content: the browser reloads the picture only when it changes."""
    digest = hashlib.blake2b(digest_size=8)
    digest.update(anim.svg.encode("utf-8"))
    digest.update(json.dumps([anim.changes, [v[0] for v in anim.variants]]).encode("utf-8"))
    return digest.hexdigest()


def animation_player(anim: Animation, *, key: str, step: int, on_node: Callable[[str, int], None], program_id: str,
                     seconds: float, classroom: bool = False, zoom: str | float = "screen",
                     beside: bool = True, follow_first: bool = False, share_url: bool = True,
                     top: int = 60, resume: bool = False) -> None:
    """Play ``anim`` in the browser, starting at ``step``; ``on_node(node_id, step)`` runs when a node is clicked.

    Steps in and out (``step``, the ``step`` of a click, the URL's ``step=``) are steps of the backward
    trace; a collapsed animation (``anim.trace_steps``) plays one box step at a time and maps them.
    A click on a box or an open group's header (``g<n>``) of a collapsed drawing is reported too.

    ``seconds`` per step for Play; ``beside`` puts the explanation beside the graph (else below);
    ``follow_first`` scrolls to the current node on the first picture too (a link that opens at a later step);
    ``top`` is the height of the page's top bar, under which the control bar sticks;
    ``program_id`` names the program: a new drawing of the same program keeps the step on screen;
    ``resume`` (the page was entered again through the menu) starts at the step this tab last showed for it.
    """
    def clicked() -> None:
        state = st.session_state.get(key)
        value = None if state is None else state.get("node")
        if isinstance(value, dict) and value.get("node"):
            raw_step = value.get("step", step)
            on_node(str(value["node"]), int(raw_step) if isinstance(raw_step, int | float) else step)

    data: dict[str, Any] = {"anim": anim.to_json(), "anim_id": animation_id(anim), "step": int(step),
                            "program_id": program_id,
                            "seconds": float(seconds), "classroom": classroom, "zoom": zoom, "beside": beside,
                            "follow_first": follow_first, "share_url": share_url, "top": top, "resume": resume,
                            "keys_help": KEYS_HELP, **sizing(classroom)}
    _player_component()(key=key, data=data, on_node_change=clicked)
