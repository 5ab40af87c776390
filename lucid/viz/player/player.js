// The backward-pass player: plays one lucid.viz.player.animation.Animation in the browser, with no server round trip.
//
// One module, two hosts. Streamlit's v2 component calls the default export with its component object
// ({ data, setTriggerValue, parentElement }); anywidget calls the default export with nothing and gets back
// { render }, the notebook widget (lucid.viz.stepper). Both end in ``mount``, so a fix lands in both.
// No network: the module is shipped inside the Python package and handed to the host as text, with its one
// import (the pure logic, tested under Node) replaced by that module's text (lucid.viz.player.script).
import {
  BASE, bodyFont, boxOf, clampStep, fitKeepsBoxes, fitScale, gradHistory, gradOf, hostRoom, inViewBox, isNarrow,
  keyStep, laterQueue, lensView, lookPatch, looksAt, needsRefit, nodeName, overlaps, playerStepOf, playStart, playTick,
  say, scrollbarShown, scrollToShow, spokenText, stepPatches, storedStepOf, tickDelay, traceStepOf, walkKey, zoomOf,
} from './logic.mjs';

const PREFIX = 'lucid-player';

function setText(node, text) {
  if (node.textContent !== text) node.textContent = text;
}

function setAttr(node, name, value) {
  if (node.getAttribute(name) !== value) node.setAttribute(name, value);
}

function setProp(node, name, value) {
  if (node[name] !== value) node[name] = value;
}

function setData(node, name, value) {
  if (node.dataset[name] !== value) node.dataset[name] = value;
}

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
  inspect: 'M8 2a6 6 0 1 0 0 12A6 6 0 0 0 8 2zm0 2.2a3.8 3.8 0 1 1 0 7.6 3.8 3.8 0 0 1 0-7.6z'
           + 'M12.2 13.6l1.4-1.4 4.6 4.6-1.4 1.4z',
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
  path.setAttribute('fill-rule', 'evenodd');
  svg.appendChild(path);
  return svg;
}

function relabel(ui, words) {
  // Put the page's language on the controls built with English words (a switch relabels them in place).
  ui.words = words || {};
  ui.bar.setAttribute('aria-label', say(words, 'bar', 'Backward pass steps'));
  ui.slider.setAttribute('aria-label', say(words, 'step', 'Step'));
  ui.keys.textContent = say(words, 'keys', '⌨ Keys');
  for (const [name, english] of [['first', 'First'], ['prev', 'Prev'], ['next', 'Next'], ['last', 'Last']]) {
    ui.buttons[name].querySelector('.lucid-label').textContent = say(words, name, english);
  }
  ui.buttons.first.title = say(words, 'first_title', 'First step (Home)');
  ui.buttons.last.title = say(words, 'last_title', 'Last step (End)');
  ui.buttons.play.title = say(words, 'play_title', 'Play / pause (Space)');
  ui.inspect.title = say(words, 'inspect_title',
                         'Node inspector: jump to it below the graph (click a node to pick it)');
  ui.inspect.setAttribute('aria-label', say(words, 'inspect_label', 'Jump to the node inspector'));
  ui.speed.setAttribute('aria-label', say(words, 'speed', 'Autoplay speed'));
  ui.speed.title = say(words, 'speed', 'Autoplay speed');
  ui.hint.textContent = say(words, 'graph_keys', GRAPH_KEYS);
}

const GRAPH_KEYS = 'Tab reaches the graph once; then ↓ and ↑ move between its nodes, inputs first; Enter or Space '
  + "opens a node's facts or a box; → and ← step through the backward pass.";

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
  // The step number is said by the step's announcement (``announce``), whose title starts with it.
  const label = el('span', { class: 'lucid-step-label' });
  const keys = el('span', { class: 'lucid-keys', tabindex: '0', role: 'note' }, '⌨ Keys');
  // Where in a lesson the class is ("Lesson 2 / 5"), and a jump to the node inspector under the graph.
  const lessonAt = el('span', { class: 'lucid-lesson', 'aria-live': 'polite' });
  // The link's title, in the same row: it takes the room left over and is cut with an ellipsis, never a row.
  const lessonTitle = el('span', { class: 'lucid-lesson-title', 'aria-live': 'polite' });
  // A student's connection to the class, said only when it is lost (or the class ended).
  const roomStatus = el('span', { class: 'lucid-room-status', role: 'status', 'aria-live': 'assertive' });
  roomStatus.hidden = true;
  // An icon only: the bar stays one row on a projector.
  const inspect = el('button', { type: 'button', class: 'lucid-btn lucid-inspect', 'data-action': 'inspect',
                                 title: 'Node inspector: jump to it below the graph (click a node to pick it)',
                                 'aria-label': 'Jump to the node inspector' });
  inspect.appendChild(icon('inspect'));
  // Autoplay speed lives in the bar it governs (one row of controls above the graph, not two).
  const speed = el('select', { class: 'lucid-speed', 'aria-label': 'Autoplay speed', title: 'Autoplay speed' });
  bar.append(slider, label, lessonAt, lessonTitle, roomStatus, speed, inspect, keys);
  const body = el('div', { class: 'lucid-body' });
  const host = el('div', { class: 'lucid-svg-host' });
  // How to walk the graph by keyboard, read with the graph's name (aria-describedby), never shown.
  const hint = el('span', { class: 'lucid-sr-only', id: `${PREFIX}-hint-${Math.random().toString(36).slice(2, 10)}` });
  // The explanation is read where it stands; what each step says aloud is its short announcement.
  const expl = el('div', { class: 'lucid-expl' });
  const announcement = el('div', { class: 'lucid-sr-only lucid-announce', 'aria-live': 'polite', 'aria-atomic': 'true' });
  const lens = el('div', { class: 'lucid-lens', 'aria-hidden': 'true' });
  lens.addEventListener('scroll', () => { if (lens.__ui) lens.__ui.lensScroll = null; }, { passive: true });
  const title = el('div', { class: 'lucid-expl-head' });
  const text = el('div', { class: 'lucid-expl-body' });
  expl.append(lens, title, text);
  // The graph's column: the graph, and under it the lens when a wide graph leaves room there.
  const column = el('div', { class: 'lucid-graph-col' });
  column.append(host);
  body.append(column, expl);
  root.append(bar, body, hint, announcement);
  parent.appendChild(root);
  const ui = { root, bar, buttons, slider, label, lessonAt, lessonTitle, roomStatus, inspect, speed, keys, column,
               host, hint, announcement, expl, lens, title, text, lensScroll: null };
  lens.__ui = ui;
  return ui;
}

function scroller(node) {
  for (let p = node.parentElement; p; p = p.parentElement) {
    const s = getComputedStyle(p);
    if (/(auto|scroll)/.test(s.overflowY) && p.scrollHeight > p.clientHeight + 1) return p;
  }
  return document.scrollingElement || document.documentElement;
}

function pageTop(node) {
  // Where ``node`` starts on the page, measured from the top of the page's scrolling content.
  const s = scroller(node);
  const scrolled = s === document.scrollingElement || s === document.documentElement ? window.scrollY : s.scrollTop;
  return node.getBoundingClientRect().top + scrolled;
}

function fit(ui, p) {
  ui.root.style.setProperty('--lucid-bar-h', ui.bar.offsetHeight + 'px');
  // "screen": fit the width and the screen height below the controls, but never shrink past a
  // readable scale (then the page scrolls) nor blow a tiny graph up; "width": fit the width only;
  // a number: that fixed scale. In Classroom mode "screen" fits the whole graph into the screen
  // below the controls, however small: the lens (see ``lens``) magnifies the step's node and edge.
  const data = p.data;
  const svg = ui.host.querySelector('svg');
  if (!svg) return;
  const w = parseFloat(svg.getAttribute('width')) * 4 / 3;
  const h = parseFloat(svg.getAttribute('height')) * 4 / 3;
  if (!(w > 0 && h > 0)) return;
  // The player's own width decides whether the explanation fits beside the graph (a notebook's column is
  // narrower than the screen the CSS media query sees); then the graph is fitted to its host's real width.
  ui.root.classList.toggle('lucid-narrow', isNarrow(ui.root.getBoundingClientRect().width));
  const room = hostRoom(ui.host.getBoundingClientRect().width, ui.host.offsetWidth - ui.host.clientWidth);
  if (room === null) {
    refitSoon(ui, p);
    return;
  }
  p.refitTries = 0;
  let width = room;
  const whole = data.whole_graph && data.zoom === 'screen';
  const body = ui.root.querySelector('.lucid-body');
  const row = data.beside && getComputedStyle(body).flexDirection.startsWith('row');
  const shared = whole && row && body.clientWidth > 0;
  let total = 0;
  if (shared) {
    // Beside the explanation the graph gets up to its usual share of the row; a graph that the screen's
    // height already limits takes only the width it needs and leaves the rest to the explanation and lens.
    total = body.clientWidth - (parseFloat(getComputedStyle(body).columnGap) || 16);
    width = Math.round(total * data.graph_share);
  }
  // Fitted to the room it would have at 100 % browser zoom (the screen z times as many CSS pixels, the page above
  // it as tall): zooming in makes the graph's text bigger (WCAG 1.4.4) and the graph scrolls, where fitting the
  // zoomed room would draw its text smaller in CSS pixels the more the reader zooms in.
  // (Inside a frame, a notebook's output in Colab or VS Code, the window's width is not the page's: no zoom read.)
  const z = window.top === window ? zoomOf(window.outerWidth, window.innerWidth, window.devicePixelRatio) : 1;
  const screenH = window.innerHeight * z;
  const fixed = typeof data.zoom === 'number' || data.zoom === 'width';
  const height = fixed ? 0 : whole ? Math.max(data.min_height, screenH - pageTop(ui.host) - data.margin)
    : Math.max(320, screenH - data.reserve);
  const scale = fitScale(data.zoom, { w, h, width: width * z, height, maxScale: data.max_scale,
                                      minScale: data.min_scale, whole });
  ui.root.dataset.zoom = String(z);
  // The boxes of nodes and edges are measured again when next needed if the scale, the zoom or the fonts changed
  // (a font that arrived late, text drawn at another size); a refit that changes none of them keeps them.
  const measured = { scale, zoom: z, fonts: fontsLoaded() };
  if (p.boxes && !fitKeepsBoxes(p.boxesFit, measured)) p.boxes.clear();
  p.boxesFit = measured;
  svg.style.width = Math.round(w * scale) + 'px';
  svg.style.height = Math.round(h * scale) + 'px';
  ui.column.style.flex = shared ? `0 0 ${Math.min(width, Math.max(Math.round(w * scale) + 4,
                                                                    Math.round(total * data.min_graph_share)))}px` : '';
  // A wide graph fitted whole leaves the bottom of its column empty: the lens goes there (as wide as the
  // graph's column, the explanation keeps its own column); otherwise it sits above the explanation.
  const under = whole && row
    ? window.innerHeight - (pageTop(ui.host) + h * scale) - data.margin - 16 : 0;
  p.lensRoom = under >= data.lens_under_px ? Math.round(under) : 0;
  if (p.lensRoom && ui.lens.parentElement !== ui.column) ui.column.appendChild(ui.lens);
  else if (!p.lensRoom && ui.lens.parentElement !== ui.expl) ui.expl.insertBefore(ui.lens, ui.expl.firstChild);
  p.scale = scale;
  p.fittedTop = whole ? pageTop(ui.host) : undefined;
  // In a notebook the graph scrolls inside its own box, as tall as the room it was fitted to: the step's node
  // is brought into view there, and the notebook's page is never scrolled by the player (see showInHost).
  ui.host.style.maxHeight = data.embedded && !whole && height > 0 ? Math.round(height) + 'px' : '';
  p.fitted = hostSize(ui);
  // Fitted whole beside the graph, the explanation ends at the bottom of the screen: its headline stays at
  // its top and the rest scrolls inside it (player.css), so the arithmetic line is never below the fold.
  ui.expl.style.maxHeight = shared
    ? Math.max(data.min_height, window.innerHeight - Math.max(0, ui.expl.getBoundingClientRect().top) - data.margin)
      + 'px' : '';
  lens(ui, p);
}

function fontsLoaded() {
  // How many of the page's fonts have arrived: one arriving late changes the text's boxes.
  let n = 0;
  if (document.fonts && document.fonts.forEach) document.fonts.forEach((f) => { if (f.status === 'loaded') n += 1; });
  return n;
}

function hostSize(ui) {
  return { width: ui.host.getBoundingClientRect().width, rootWidth: ui.root.getBoundingClientRect().width };
}

/** Frames a player not laid out yet waits for a size before it leaves the refit to its ResizeObserver. */
const REFIT_FRAMES = 30;

function refitSoon(ui, p) {
  // The host has no width yet (a notebook output drawn before it is attached or shown, a reloaded JupyterLab):
  // fit it on a next frame, never to a guessed width; mount's ResizeObserver fits it too once it gets a size.
  if (p.refitQueued || (p.refitTries || 0) >= REFIT_FRAMES) return;
  p.refitQueued = true;
  p.refitTries = (p.refitTries || 0) + 1;
  requestAnimationFrame(() => {
    p.refitQueued = false;
    if (!ui.root.isConnected) return;
    fit(ui, p);
    if (p.refitTries === 0) showInHost(ui, p);
  });
}

function showInHost(ui, p) {
  // The step's node inside the graph's own scroll box (sideways, and up and down where it scrolls: a notebook),
  // centred where it was out of view. Only the graph's box scrolls, never the page around it.
  const cur = p.current && p.els && p.current[p.step] && p.els[p.current[p.step]];
  if (!cur) return;
  const view = ui.host.getBoundingClientRect();
  if (!(view.width > 0)) return;
  const edge = p.edge[p.step] && p.els[p.edge[p.step]];
  const box = inViewBox(cur.getBoundingClientRect(), edge ? edge.getBoundingClientRect() : null, view.top,
                        view.bottom, view.width);
  const { dx, dy } = scrollToShow(box, view, view.top, view.bottom);
  if (dx !== null) ui.host.scrollLeft += dx;
  if (dy !== null && ui.host.scrollHeight > ui.host.clientHeight) ui.host.scrollTop += dy;
}

const SVG_NS = 'http://www.w3.org/2000/svg';

function graphBox(p, g) {
  // The box of a node or edge group in the outer SVG's own units (the graph group's transform applied),
  // measured once per look the element takes: only its look changes its box, and every measure forces a
  // layout of the page. ``fit`` forgets them (a font that arrived late, a new size).
  const key = g.id + ':' + (p.shown.has(g.id) ? p.shown.get(g.id) : BASE);
  let box = p.boxes.get(key);
  if (!box) {
    box = boxOf(g.getBBox(), p.graphMatrix);
    p.boxes.set(key, box);
  }
  return box;
}

function lensItems(p) {
  // What the graph group draws, in paint order (background, clusters, edges, nodes), each with an id that
  // a <use> can name: the lens draws the few of them its view reaches, not a copy of the whole graph.
  if (!p.lensItems) {
    const graph = p.graphEl;
    p.lensItems = [];
    let i = 0;
    for (const c of graph.children) {
      if (c.tagName.toLowerCase() === 'title') continue;
      if (!c.id) c.id = `${p.graphId}-${i++}`;
      p.lensItems.push(c);
    }
  }
  return p.lensItems;
}

/** Graph units around the lens view in which an element still counts as seen there (its stroke's width). */
const LENS_SLACK = 8;

function lensWant(p, view) {
  // The elements of the graph the lens ``view`` reaches, in paint order (read: their boxes, measured once per look).
  return lensItems(p).filter((g) => overlaps(graphBox(p, g), view, LENS_SLACK));
}

function lensPicture(ui, svg, p, want) {
  // The lens SVG draws the elements of the graph its view reaches (``want``), one <use> each, in paint order: a
  // step changes a few elements, and only their copies are made again (a <use> of the whole graph group was
  // copied whole, every node's text laid out again, on every step). A <use> once made stays (outside the view
  // it is clipped away: nothing of an element farther than LENS_SLACK from the view reaches into it), so a step
  // makes copies only of elements the lens has not shown yet; new ones go in paint order among the others.
  // When another graph on the page has the same ids (two players), a <use> would find its element instead:
  // then the lens shows the whole graph group, as it did before.
  if (svg.__whole) return;
  const scope = ui.root.getRootNode();
  const group = svg.firstElementChild;
  if (!want.every((g) => scope.getElementById(g.id) === g)) {
    svg.__whole = true;
    const use = document.createElementNS(SVG_NS, 'use');
    use.setAttribute('href', '#' + p.graphId);
    svg.replaceChildren(use);
    return;
  }
  const have = svg.__uses;
  const order = lensOrder(p);
  for (const g of want) {
    if (have.has(g.id)) continue;
    const use = document.createElementNS(SVG_NS, 'use');
    use.setAttribute('href', '#' + g.id);
    use.__at = order.get(g.id);
    let next = group.firstChild;  // the first copy of an element drawn after this one
    while (next && next.__at < use.__at) next = next.nextSibling;
    group.insertBefore(use, next);
    have.set(g.id, use);
  }
}

function lensDrop(ui, patch) {
  // Before a step changes its elements, the lens lets go of its copies of them: a <use> whose element changes is
  // copied again whole, in view or not (out of the lens's view it is only clipped away), so a jump that changes most
  // of the graph would copy every element the lens ever showed. ``lensPicture`` makes again the copies the new view
  // reaches, one copy each, as the change would have.
  const svg = ui.lens.querySelector(':scope > svg');
  const have = svg && !svg.__whole && svg.__uses;
  if (!have || !have.size) return;
  for (const [id] of patch) {
    const use = have.get(id);
    if (use) { use.remove(); have.delete(id); }
  }
}

function lensOrder(p) {
  // Element id -> its place in the graph group's paint order.
  if (!p.lensOrder) p.lensOrder = new Map(lensItems(p).map((g, i) => [g.id, i]));
  return p.lensOrder;
}

function headlineRoom(ui, p) {
  // The screen height left for a lens above the explanation: the step's title and arithmetic line (the
  // headline) always stay on screen below it, whatever their length (a tensor step's line is long).
  const arith = ui.text.querySelector('.lgl-arith');
  const gap = (el) => { const s = getComputedStyle(el); return parseFloat(s.marginTop) + parseFloat(s.marginBottom); };
  const keep = ui.title.offsetHeight + gap(ui.title) + (arith ? arith.offsetHeight + gap(arith) : 0)
    + gap(ui.lens) + parseFloat(getComputedStyle(ui.expl).paddingTop) + 8;
  const top = Math.max(0, ui.expl.getBoundingClientRect().top);
  return window.innerHeight - top - keep - p.data.margin;
}

function lensParts(ui) {
  // The lens holds either a magnified copy of the graph (an SVG <use>) or the node's card (HTML).
  let svg = ui.lens.querySelector(':scope > svg');
  let card = ui.lens.querySelector(':scope > .lucid-card-host');
  if (!card) {
    card = el('div', { class: 'lucid-card-host' });
    ui.lens.appendChild(card);
  }
  return { svg, card };
}

function lens(ui, p) {
  // Whenever the picture is drawn so small that node text is under min_text_px on screen, the lens above
  // the explanation shows the step's node WHOLE, with text at least lens_text_px high: a magnified live copy
  // of the graph (SVG <use>s of what it shows: every step's looks, no copy to keep in step) with the edge the gradient
  // takes when that fits too; a node too big for that at readable size (a gradient grid) is shown as its
  // card instead (``lucid.viz.explanation.lens_card``: the grid in the page's font, the headline's entry highlighted).
  lensShow(ui, p, lensMeasure(ui, p));
}

function lensCard(ui, p, card) {
  // The step's card in the card host (parsed once per step shown), at its full length: ``lucid-card-short`` is
  // decided by its height.
  const key = `${p.animId}:${p.step}`;
  if (card.dataset.step !== key) {
    putHtml(p, card, 'card', p.step);
    card.dataset.step = key;
  }
  const c = card.firstElementChild;
  if (c) c.classList.remove('lucid-card-short');
}

function lensMeasure(ui, p) {
  // The lens's part of a step that reads the page (one layout for the whole step: nothing is written between these
  // reads); ``lensShow`` writes what they decide. Null: no lens at this step.
  const data = p.data;
  const step = p.step;
  const cur = p.current && p.current[step] && p.els[p.current[step]];
  const small = data.min_text_px && p.minFont && p.scale && p.minFont * 4 / 3 * p.scale < data.min_text_px;
  if (!cur || !small || !p.graphId || ui.expl.style.display === 'none') return null;
  if (ui.lens.style.display === 'none') ui.lens.style.display = '';
  const { svg, card } = lensParts(ui);
  const cardHtml = p.cards && p.cards[step];
  // A step with a card most likely shows it (a tensor's grid is seldom readable in the graph), unless it showed the
  // graph last time: the card is put in with the step's other changes, so the one layout measures its height as
  // well. A wrong guess costs a second layout.
  const early = !!cardHtml && (p.lensModes.get(step) || 'card') === 'card';
  if (early) {
    lensCard(ui, p, card);
    if (svg && svg.style.display !== 'none') svg.style.display = 'none';
    if (card.style.display !== '') card.style.display = '';
  }
  // The lens's width as it is without a limit on its height: its max-height is kept (setting it aside and back
  // would lay the page out twice) unless it shows a scroll bar, which narrows it.
  const ls = getComputedStyle(ui.lens);
  let width0 = ui.lens.clientWidth;
  if (scrollbarShown(ui.lens.offsetWidth, width0, parseFloat(ls.borderLeftWidth), parseFloat(ls.borderRightWidth))) {
    ui.lens.style.maxHeight = '';
    width0 = ui.lens.clientWidth;
  }
  const node = graphBox(p, cur);
  const edge = p.edge[step] && p.els[p.edge[step]];
  const width = Math.max(120, width0 || ui.expl.clientWidth - 32);
  const maxH = p.lensRoom || Math.max(60, headlineRoom(ui, p));
  // The node with its edge when both fit at a readable size, else the node alone, else its card.
  const view = lensView({ node, edge: edge ? graphBox(p, edge) : null, width, maxH,
                          kMin: data.lens_text_px / p.minFont, kMax: data.lens_max_px / p.minFont,
                          hasCard: !!cardHtml });
  p.lensModes.set(step, view.mode);
  const out = { cur, view, maxH };
  if (view.mode === 'card') {
    if (early) {
      // Its full height, read with the rest; exact unless a scroll bar narrowed it (then read again once written).
      out.cardHeight = ui.lens.scrollHeight;
      out.cardBar = scrollbarShown(ui.lens.offsetWidth, ui.lens.clientWidth, parseFloat(ls.borderLeftWidth),
                                   parseFloat(ls.borderRightWidth));
    }
  } else {
    const [vx, vy, vw, vh] = view.viewBox;
    out.want = lensWant(p, { left: vx, top: vy, right: vx + vw, bottom: vy + vh });
  }
  return out;
}

function lensShow(ui, p, m) {
  // Write the lens that ``lensMeasure`` decided (null: hidden).
  if (!m) {
    ui.lensScroll = null;
    ui.lens.style.display = 'none';
    delete ui.lens.dataset.node;
    delete ui.lens.dataset.mode;
    return;
  }
  const { cur, view, maxH } = m;
  let { svg, card } = lensParts(ui);
  if (!svg || svg.dataset.graph !== p.graphId) {
    if (svg) svg.remove();
    svg = document.createElementNS(SVG_NS, 'svg');
    svg.dataset.graph = p.graphId;
    const group = document.createElementNS(SVG_NS, 'g');
    group.setAttribute('transform', p.graphEl.getAttribute('transform') || '');
    svg.appendChild(group);
    svg.__uses = new Map();
    ui.lens.insertBefore(svg, card);
  }
  const px = maxH + 'px';
  ui.lens.dataset.node = cur.id;
  if (view.mode === 'card') {
    ui.lensScroll = null;
    if (svg.style.display !== 'none') svg.style.display = 'none';
    if (card.style.display !== '') card.style.display = '';
    const measured = m.cardHeight !== undefined;
    if (!measured) lensCard(ui, p, card);
    ui.lens.dataset.mode = 'card';
    if (ui.lens.style.maxHeight !== px) ui.lens.style.maxHeight = px;
    // Too tall for the room left by the headline: the value line goes first, the gradient stays.
    const c = card.firstElementChild;
    if (c) {
      const tall = measured && !(m.cardBar && m.cardHeight > maxH + 1) ? m.cardHeight > maxH + 1
        : ui.lens.scrollHeight > maxH + 1;
      if (tall) c.classList.add('lucid-card-short');
    }
    return;
  }
  if (svg.style.display !== '') svg.style.display = '';
  if (card.style.display !== 'none') card.style.display = 'none';
  ui.lens.dataset.mode = 'graph';
  const [vx, vy, vw, vh] = view.viewBox;
  lensPicture(ui, svg, p, m.want);
  setAttr(svg, 'viewBox', `${vx} ${vy} ${vw} ${vh}`);
  setProp(svg.style, 'width', view.width + 'px');
  setProp(svg.style, 'height', view.height + 'px');
  if (ui.lens.style.maxHeight !== px) ui.lens.style.maxHeight = px;
  // Setting a scroll lays the page out at once: skipped when the lens is known to be scrolled there already
  // (as read after the last time it was set, and nothing scrolled it since: any scroll, a clamp included,
  // forgets it). A new size clamps a scroll the same way whether it is set again or not.
  const at = ui.lensScroll;
  if (!(at && at[0] === view.scrollLeft && at[1] === 0)) {
    ui.lens.scrollLeft = view.scrollLeft;
    ui.lens.scrollTop = 0;
    ui.lensScroll = [ui.lens.scrollLeft, ui.lens.scrollTop];
  }
}

let motionQuery;

function reducedMotion() {
  // The reader asked for less motion (prefers-reduced-motion): every scroll jumps, nothing glides (player.css
  // turns off transitions and animations too); autoplay still changes the step, as plain step changes.
  // The query is made once (its ``matches`` follows the setting), not on every step.
  if (motionQuery === undefined) {
    motionQuery = typeof window.matchMedia === 'function' ? window.matchMedia('(prefers-reduced-motion: reduce)') : null;
  }
  return !!motionQuery && motionQuery.matches;
}

function keepInView(ui, p, smooth) {
  // The node receiving gradient (with the edge it flows along when both fit) stays inside the
  // screen, below the sticky control bar, and inside the graph's own horizontal scroll.
  const step = p.step;
  const cur = p.current[step] && p.els[p.current[step]];
  if (!cur) return;
  if (p.data.embedded) showInHost(ui, p);  // a notebook's graph scrolls in its own box first
  scrollInView(ui, p, viewMeasure(ui, p, cur), smooth);
}

function viewMeasure(ui, p, cur) {
  // keepInView's reads: where the step's node (and its edge) is on screen, and how far to scroll to show it.
  const edge = p.edge[p.step] && p.els[p.edge[p.step]];
  const top = ui.bar.getBoundingClientRect().bottom + 8;
  const bottom = window.innerHeight - 8;
  const view = ui.host.getBoundingClientRect();
  const box = inViewBox(cur.getBoundingClientRect(), edge ? edge.getBoundingClientRect() : null, top, bottom,
                        view.width);
  return { top, bottom, box, ...scrollToShow(box, view, top, bottom) };
}

function scrollInView(ui, p, seen, smooth) {
  // keepInView's scrolls, from what ``viewMeasure`` read (the lens, written in between, never moves the graph).
  const { top, bottom, box, dx, dy } = seen;
  const behavior = smooth && !reducedMotion() ? 'smooth' : 'auto';
  if (dx !== null) ui.host.scrollBy({ left: dx, behavior });
  if (dy !== null) {
    let by = dy;
    if (by > 0 && ui.expl.offsetParent && getComputedStyle(ui.expl).position === 'sticky') {
      // The explanation sticks below the bar only while the graph's column reaches below it: do not
      // scroll further than that (unless the node itself would stay below the screen).
      const body = ui.root.querySelector('.lucid-body').getBoundingClientRect();
      const room = body.bottom - (top + ui.expl.offsetHeight + 8);
      by = Math.max(Math.min(by, room), box.bottom - bottom);
    }
    const s = scroller(ui.root);
    s.scrollBy({ top: by, behavior });
  }
}

function settle(ui, p) {
  // The rest of the page may still be moving (an expander folding, fonts growing): look again. A graph
  // fitted whole into the screen is seen from the top of the page (it was fitted to the room there).
  for (const ms of [0, 250, 800]) {
    setTimeout(() => {
      if (!ui.root.isConnected) return;
      if (p.data.whole_graph && p.data.zoom === 'screen' && !p.data.embedded) scroller(ui.root).scrollTo({ top: 0 });
      fit(ui, p);
      keepInView(ui, p, false);
    }, ms);
  }
}

// Animations this page was sent, by id. A click reports the animation its player holds, and the run it starts
// sends none back (``anim: null`` with its id): the player goes on with the one it has, and a player drawn anew
// (the page's layout changed around it) takes it from here; without it, it asks the server (``missing``).
const HELD = new Map();
const HELD_MAX = 3;

function load(ui, p, data) {
  const anim = data.anim;
  p.animId = data.anim_id;
  HELD.delete(data.anim_id);
  HELD.set(data.anim_id, anim);
  while (HELD.size > HELD_MAX) HELD.delete(HELD.keys().next().value);
  p.variants = anim.variants;
  p.changes = anim.changes;
  p.current = anim.current;
  p.edge = anim.edge;
  p.titles = anim.titles;
  p.explanations = anim.explanations;
  p.cards = anim.cards || [];
  p.n = anim.changes.length;
  // A collapsed graph steps box by box: step k shows the backward trace up to trace_steps[k].
  p.traceSteps = anim.trace_steps && anim.trace_steps.length ? anim.trace_steps : null;
  p.collapsed = !!anim.collapsed;
  // A box opened from the keyboard draws the graph anew: the focus goes back to the node of the same id.
  const focused = ui.host.contains(document.activeElement) ? document.activeElement.id : null;
  ui.host.innerHTML = anim.svg;
  const svg = ui.host.querySelector('svg');
  if (svg) svg.style.display = 'block';
  // The lens shows the graph group itself (an SVG <use>): give it an id no other player on the page has.
  const graph = svg && svg.querySelector('g.graph');
  p.graphId = null;
  p.graphEl = graph;
  p.lensItems = null;
  p.lensOrder = null;
  p.boxes = new Map();
  p.boxesFit = undefined;
  p.lensModes = new Map();  // the lens's mode at each step the last time it was shown (a guess for the next time)
  if (graph) {
    p.graphId = `${PREFIX}-graph-${Math.random().toString(36).slice(2, 10)}`;
    graph.id = p.graphId;
    const t = graph.transform.baseVal.consolidate();
    p.graphMatrix = t ? t.matrix : { a: 1, d: 1, e: 0, f: 0 };
  }
  p.els = {};
  p.base = {};
  ui.host.querySelectorAll('g.node, g.edge').forEach((g) => { p.els[g.id] = g; });
  for (const [id] of p.variants) {
    const g = p.els[id];
    if (g && !(id in p.base)) p.base[id] = { cls: g.getAttribute('class'), html: inner(g) };
  }
  p.shown = new Map();
  p.patches = stepPatches(p.changes, p.variants);
  p.models = new Map();
  p.htmlModels = new Map();
  p.diffs = new Map();  // the writes between two looks of an element (or two steps' explanations): diffParts
  p.step = 0;
  // The node text that carries names, values and gradients: the size most node text is set in
  // (the small kind/shape caption line is smaller and does not set the scale).
  p.minFont = bodyFont(Array.from(ui.host.querySelectorAll('g.node text'),
                                  (t) => parseFloat(t.getAttribute('font-size'))));
  ui.host.querySelectorAll('g.node').forEach((node) => {
    // t<k>/op<k>: a tensor or its op (the inspector); g<n>: a box or an open group's header (open/close it).
    if (/^(t|op)[0-9]+$/.test(node.id) || (p.collapsed && /^g[0-9]+$/.test(node.id))) {
      node.style.cursor = 'pointer';
      node.addEventListener('click', () => pick(p, node));
    }
  });
  graphText(ui, p, anim, svg);
  parseLooksWhenIdle(p);
  if (focused !== null) {
    const again = p.walk.find((g) => g.id === focused) || p.walk[0];
    if (again) { setRoving(p, p.walk.indexOf(again)); again.focus({ preventScroll: true }); }
  }
  ui.slider.max = String(Math.max(p.n - 1, 0));
  ui.bar.style.display = p.n > 1 || p.data.lesson ? '' : 'none';
  ui.expl.style.display = p.n > 0 ? '' : 'none';
}

function pick(p, node) {
  // A click on a node, or Enter/Space on it: its facts (the inspector), or a box opened or closed. The report
  // names the program it was made on: the server drops clicks on a drawing no longer shown.
  p.trigger('node', { node: node.id, step: traceOf(p, p.step), program: p.programId, anim: p.animId });
}

function graphText(ui, p, anim, svg) {
  // The graph as text (keyboard and screen reader): the SVG is a named group; its tensor nodes (and a collapsed
  // drawing's boxes) are buttons in topological order, one Tab stop for all of them (a roving tabindex: ↓/↑
  // move between them), each named with its value and the gradient it shows at the step on screen; ops,
  // edges and cluster frames are hidden from the tree (a node's name says its op, inputs and users).
  p.a11y = anim.nodes && anim.nodes.order ? anim.nodes : null;
  p.nodeOf = new Map(p.a11y ? p.a11y.order.map((n) => [n.id, n]) : []);
  p.gradHist = gradHistory(p.a11y ? p.a11y.grads : []);
  p.names = {};
  p.labels = new Map();
  p.walk = [];
  p.currentEl = null;
  p.named = null;
  if (!svg) return;
  svg.setAttribute('role', 'group');
  svg.setAttribute('aria-describedby', ui.hint.id);
  svg.removeAttribute('aria-hidden');
  const graph = svg.querySelector('g.graph');
  const title = graph && graph.querySelector(':scope > title');
  if (title) title.remove();  // "lucid": Graphviz's name for the graph, not the reader's
  for (const n of p.a11y ? p.a11y.order : []) p.names[n.id] = n.name;
  if (p.a11y && !p.collapsed) {
    for (const n of p.a11y.order) if (p.els[n.id]) p.walk.push(p.els[n.id]);
  } else {
    // A collapsed drawing in the order it is drawn (its open groups' headers among their nodes).
    ui.host.querySelectorAll('g.node').forEach((g) => { if (/^(t|g)[0-9]+$/.test(g.id)) p.walk.push(g); });
  }
  const inWalk = new Set(p.walk);
  for (const c of (graph ? graph.children : [])) {
    if (!inWalk.has(c)) c.setAttribute('aria-hidden', 'true');
  }
  p.titleOf = new Map();
  for (const g of p.walk) {
    g.setAttribute('role', 'button');
    g.setAttribute('tabindex', '-1');
    // Named by its <title> (Graphviz's, which said its id "t6"; a step's look never touches it), not aria-label:
    // a label that is not the text drawn inside a button fails WCAG 2.5.3, and the drawn text is hidden from the
    // tree, its name saying all of it in words.
    let t = g.querySelector(':scope > title');
    if (!t) { t = document.createElementNS(SVG_NS, 'title'); g.insertBefore(t, g.firstChild); }
    p.titleOf.set(g, t);
    hideInside(g);
    // A click picks the node without taking the focus to it: Space after a click still plays (a presenter's
    // mouse and keys); the keyboard reaches the nodes by Tab.
    g.addEventListener('mousedown', (e) => e.preventDefault());
  }
  p.named = new Set(p.walk.map((g) => g.id));
  p.roving = 0;
  setRoving(p, 0);
  svg.setAttribute('aria-label', say(ui.words, 'graph_label', 'Computation graph, {n} nodes', { n: p.walk.length }));
  svg.onfocusin = (e) => {
    const i = p.walk.indexOf(e.target);
    if (i >= 0) setRoving(p, i);
  };
  svg.onkeydown = (e) => {
    if (e.ctrlKey || e.altKey || e.metaKey) return;
    const i = p.walk.indexOf(e.target);
    if (i < 0) return;
    if (e.key === 'Enter' || e.key === ' ' || e.key === 'Spacebar') {
      e.preventDefault();
      pick(p, e.target);
      return;
    }
    const to = walkKey(e.key, i, p.walk.length);
    if (to === null) return;
    e.preventDefault();
    setRoving(p, to);
    p.walk[to].focus();
  };
}

function hideInside(g) {
  // A named node's drawn text is hidden from the tree: its name says all of it in words ("val −2.000 grad —
  // pending" is not how it is said). Its looks keep this (``lookModel``), so a step never brings the text back.
  for (const c of g.children) if (c.tagName.toLowerCase() !== 'title') c.setAttribute('aria-hidden', 'true');
}

function setRoving(p, i) {
  // The one node of the walk that Tab reaches (the last one focused).
  const before = p.walk[p.roving];
  if (before) before.setAttribute('tabindex', '-1');
  p.roving = i;
  if (p.walk[i]) p.walk[i].setAttribute('tabindex', '0');
}

function graphStep(ui, p, k, changed) {
  // Every node's name at step k (only those that changed are set again) and aria-current on the node
  // receiving gradient, as the picture shows them. Named from the animation's text, every node is named again
  // (no DOM read: a few microseconds each); named from its drawn text (a collapsed drawing), only the nodes
  // whose look this step ``changed`` (ids; all when not given), so a step of 5,000 drawn nodes reads a few.
  const t = traceOf(p, k);
  const only = changed && p.labels.size ? new Set(changed) : null;
  for (const g of p.walk) {
    const node = p.nodeOf.get(g.id);
    const named = node && !node.box;
    if (!named && only && !only.has(g.id)) continue;
    let name;
    if (named) {
      name = nodeName(ui.words, node, gradOf(p.gradHist, g.id, t), p.names);
    } else {
      name = spokenText(Array.from(g.querySelectorAll('text'), (x) => x.textContent));
      if (/^g[0-9]+$/.test(g.id)) name = say(ui.words, 'box_name', '{name}; box: Enter opens or closes it', { name });
    }
    const check = p.checkWords && p.checkWords.get(g.id);
    if (check) name += '; ' + check;
    if (p.labels.get(g) !== name) { p.titleOf.get(g).textContent = name; p.labels.set(g, name); }
  }
  const cur = p.current && p.current[k] ? p.els[p.current[k]] : null;
  if (p.currentEl !== cur) {
    if (p.currentEl) p.currentEl.removeAttribute('aria-current');
    if (cur) cur.setAttribute('aria-current', 'step');
    p.currentEl = cur;
  }
}

function traceOf(p, k) {
  // The step of the backward trace that player step k shows (what links and the server count in).
  return traceStepOf(p.traceSteps, k);
}

function playerOf(p, t) {
  // The player step that shows trace step t: the first one whose run of trace steps reaches t.
  return playerStepOf(p.traceSteps, t);
}

function lookParts(g) {
  // The parts of a node or edge that its looks draw: all its children but the <title> (its name).
  return Array.from(g.children).filter((c) => c.tagName.toLowerCase() !== 'title');
}

function inner(g) {
  let html = '';
  for (const c of g.children) if (c.tagName.toLowerCase() !== 'title') html += c.outerHTML;
  return html;
}

function syncAttributes(target, model) {
  // ``target`` gets exactly ``model``'s attributes (namespaced ones too: an <a>'s xlink:href), touching only
  // those that differ: a new colour is a repaint, not a new element to style and lay out.
  for (const a of Array.from(target.attributes)) {
    if (!model.hasAttributeNS(a.namespaceURI, a.localName)) target.removeAttributeNS(a.namespaceURI, a.localName);
  }
  for (const a of model.attributes) {
    const now = target.getAttributeNS(a.namespaceURI, a.localName);
    if (now !== a.value) target.setAttributeNS(a.namespaceURI, a.name, a.value);
  }
}

function sameKind(a, b) {
  // Whether two nodes are of the same kind (an element of the same tag, a text, a comment).
  return a.nodeType === b.nodeType && a.nodeName === b.nodeName;
}

function morphList(parent, have, want) {
  // Make ``have`` (children of ``parent`` in the page, in order) the same as ``want`` (a parsed look's): those at
  // the start and the end that keep their kind are updated in place, the ones between them are replaced by copies.
  const { head, tail } = matchEnds(have, want, sameKind);
  for (let i = 0; i < head; i++) morphNode(have[i], want[i]);
  for (let j = 1; j <= tail; j++) morphNode(have[have.length - j], want[want.length - j]);
  if (head + tail === have.length && head + tail === want.length) return;
  for (let i = head; i < have.length - tail; i++) have[i].remove();
  const made = want.slice(head, want.length - tail).map((c) => c.cloneNode(true));
  if (!made.length) return;
  if (tail) have[have.length - tail].before(...made);  // in front of the first of the kept end
  else parent.append(...made);
}

function morphNode(target, model) {
  if (model.nodeType === Node.ELEMENT_NODE) morph(target, model);
  else if (target.nodeValue !== model.nodeValue) target.nodeValue = model.nodeValue;
}

function morph(target, model) {
  // Make ``target`` (an element already in the page) the same as ``model`` (its look, parsed once): the same
  // attributes and the same children, updated in place where they keep their kind, made anew where not.
  syncAttributes(target, model);
  morphList(target, Array.from(target.childNodes), Array.from(model.childNodes));
}

function lookModel(p, id, v) {
  // Look ``v`` of element ``id`` (BASE: as drawn) as parsed SVG, outside the page: parsed once, on first use.
  const key = id + ':' + v;
  let model = p.models.get(key);
  if (!model) {
    model = document.createElementNS(SVG_NS, 'g');
    model.innerHTML = v === BASE ? p.base[id].html : p.variants[v][2];
    if (p.named && p.named.has(id)) hideInside(model);
    p.models.set(key, model);
  }
  return model;
}

function htmlModel(p, kind, k) {
  // Step k's explanation (kind 'text') or card ('card') as parsed HTML, outside the page: parsed once, on first
  // use, in a <div> as the page's own would parse it. A step puts it in by ``morphList``: the parts that keep
  // their kind are updated in place (the next step's paragraphs and tables mostly do), the rest copied in.
  const key = kind + ':' + k;
  let model = p.htmlModels.get(key);
  if (!model) {
    model = document.createElement('div');
    model.innerHTML = kind === 'text' ? p.explanations[k] : p.cards[k];
    p.htmlModels.set(key, model);
  }
  return model;
}

function putHtml(p, host, kind, k) {
  // The host's children made the same as step k's parsed explanation or card (as ``host.innerHTML = ...`` would).
  const key = `${p.animId}:${kind}:${k}`;
  const from = host.__look;
  if (from === key) return;
  const model = () => Array.from(htmlModel(p, kind, k).childNodes);
  const [fromKind, fromK] = from && from.startsWith(p.animId + ':') ? from.slice(p.animId.length + 1).split(':') : [];
  if (fromKind === undefined
      || !applyDiff(p, host, (h) => h.childNodes, from + '>' + key,
                    () => Array.from(htmlModel(p, fromKind, Number(fromK)).childNodes), model)) {
    morphList(host, Array.from(host.childNodes), model());
    host.__flat = null;
  }
  host.__look = key;
}

function applyDiff(p, target, partsOf, key, fromParts, toParts) {
  // Turn ``target`` (whose parts, ``partsOf(target)``, mirror the parsed look ``fromParts()``) into the look
  // ``toParts()`` by the writes that tell them apart, worked out once per pair of looks (``diffParts``): a step
  // back and forth over the same looks writes at once, without comparing every attribute and text again. False
  // (nothing written) when the looks differ in their structure: then the caller morphs.
  let ops = p.diffs.get(key);
  if (ops === undefined) {
    ops = diffParts(fromParts(), toParts());
    p.diffs.set(key, ops);
  }
  if (ops === null) return false;
  let flat = target.__flat;
  if (!flat) {
    flat = [];
    for (const c of partsOf(target)) flatten(c, flat);
    target.__flat = flat;
  }
  if (flat.length !== ops.size) return false;
  for (const op of ops.list) {
    const node = flat[op[1]];
    if (op[0] === 0) node.nodeValue = op[2];
    else if (op[0] === 1) node.setAttributeNS(op[2], op[3], op[4]);
    else node.removeAttributeNS(op[2], op[3]);
  }
  return true;
}

function flatten(node, out) {
  // ``node`` and everything inside it, in document order.
  out.push(node);
  for (let c = node.firstChild; c; c = c.nextSibling) flatten(c, out);
}

function diffParts(from, to) {
  // The writes that turn parts ``from`` into parts ``to`` (lists of parsed nodes of the same structure: the same
  // kinds of nodes, nested alike) as ``morphList`` would make them: [0, i, text] sets the text of the i-th node in
  // document order, [1, i, ns, name, value] sets an attribute, [2, i, ns, local] removes one; null when the
  // structures differ. ``size``: how many nodes the parts hold.
  const list = [];
  let i = 0;
  const walk = (a, b) => {
    if (!sameKind(a, b)) return false;
    const at = i++;
    if (a.nodeType !== Node.ELEMENT_NODE) {
      if (a.nodeValue !== b.nodeValue) list.push([0, at, b.nodeValue]);
      return true;
    }
    for (const x of a.attributes) {
      if (!b.hasAttributeNS(x.namespaceURI, x.localName)) list.push([2, at, x.namespaceURI, x.localName]);
    }
    for (const x of b.attributes) {
      if (a.getAttributeNS(x.namespaceURI, x.localName) !== x.value) list.push([1, at, x.namespaceURI, x.name, x.value]);
    }
    return walkAll(a.childNodes, b.childNodes);
  };
  const walkAll = (as, bs) => {
    if (as.length !== bs.length) return false;
    for (let j = 0; j < as.length; j++) if (!walk(as[j], bs[j])) return false;
    return true;
  };
  return walkAll(from, to) ? { list, size: i } : null;
}

function parseLooksWhenIdle(p) {
  // Every look of the animation (and every step's explanation and card) parsed while the page is idle, a few
  // milliseconds at a time, so even the first pass through the steps parses none of them; then the writes between
  // the looks a step key puts on an element (``diffParts``).
  const animId = p.animId;
  const todo = [...Object.keys(p.base).map((id) => ['look', id, BASE]), ...p.variants.map((v, i) => ['look', v[0], i])];
  for (let k = 0; k < p.n; k++) {
    todo.push(['html', 'text', k]);
    if (p.cards[k]) todo.push(['html', 'card', k]);
  }
  // Then the writes of every → and ← (``diffParts``), so a first pass through the steps compares no looks either.
  let looks = new Map();
  for (let k = 1; k < p.n; k++) {
    for (const [id, v] of p.patches.forward[k]) {
      const from = looks.has(id) ? looks.get(id) : BASE;
      todo.push(['diff', id, from, v], ['diff', id, v, from]);
    }
    for (const v of p.changes[k]) looks.set(p.variants[v][0], v);
    todo.push(['hdiff', 'text', k - 1, k], ['hdiff', 'text', k, k - 1]);
    if (p.cards[k - 1] && p.cards[k]) todo.push(['hdiff', 'card', k - 1, k], ['hdiff', 'card', k, k - 1]);
  }
  // And of Home and End from any step: every look of an element to its drawn look and to its look at the last step.
  const last = looks;
  p.variants.forEach(([id], v) => {
    const end = last.has(id) ? last.get(id) : BASE;
    todo.push(['diff', id, v, BASE]);
    if (end !== v) todo.push(['diff', id, v, end]);
  });
  for (const [id, v] of last) todo.push(['diff', id, BASE, v]);
  const later = typeof requestIdleCallback === 'function'
    ? (f) => requestIdleCallback(f, { timeout: 2000 }) : (f) => setTimeout(f, 50);
  let i = 0;
  const run = () => {
    if (p.animId !== animId) return;  // another animation was loaded meanwhile
    const until = performance.now() + 6;
    while (i < todo.length && performance.now() < until) {
      const [what, id, v, to] = todo[i++];
      if (what === 'html') htmlModel(p, id, v);
      else if (what === 'hdiff') {
        const key = `${p.animId}:${id}:${v}>${p.animId}:${id}:${to}`;
        if (!p.diffs.has(key)) {
          p.diffs.set(key, diffParts(Array.from(htmlModel(p, id, v).childNodes), Array.from(htmlModel(p, id, to).childNodes)));
        }
      } else if (!p.els[id]) continue;
      else if (what === 'look') lookModel(p, id, v);
      else if (v !== to && !p.diffs.has(`${id}:${v}>${to}`)) {
        p.diffs.set(`${id}:${v}>${to}`, diffParts(Array.from(lookModel(p, id, v).children),
                                                  Array.from(lookModel(p, id, to).children)));
      }
    }
    if (i < todo.length) later(run);
  };
  later(run);
}

function setLook(p, id, v) {
  // Put look ``v`` (BASE: as drawn) on element ``id``: its class, and its parts (all but the <title>). A part
  // of the same kind as the look's is updated in place (its colours, its text), so a step restyles and lays
  // out only what it changes; parts of another kind are replaced.
  const g = p.els[id];
  const model = lookModel(p, id, v);
  const cls = v === BASE ? p.base[id].cls : p.variants[v][1];
  if (g.getAttribute('class') !== cls) g.setAttribute('class', cls);
  // As drawn (the page's element mirrors its BASE look) until a look is put on it; ``applyDiff`` checks the count.
  const from = g.__look === undefined ? BASE : g.__look;
  if (from !== v && !applyDiff(p, g, lookParts, `${id}:${from}>${v}`, () => Array.from(lookModel(p, id, from).children),
                               () => Array.from(model.children))) {
    morphList(g, lookParts(g), Array.from(model.children));
    g.__flat = null;
  }
  g.__look = v;
  if (v === BASE) p.shown.delete(id);
  else p.shown.set(id, v);
}

function show(ui, p, k, opts) {
  k = clampStep(k, p.n);
  let changed = null;
  if (p.n > 0) {
    // A press of → or ← applies that step's patch, made once at load; a jump works out what differs.
    const patch = k === p.step + 1 ? p.patches.forward[k] : k === p.step - 1 ? p.patches.backward[p.step]
      : lookPatch(p.shown, looksAt(p.changes, p.variants, k));
    lensDrop(ui, patch);
    for (const [id, v] of patch) setLook(p, id, v);
    ui.title.textContent = p.titles[k];
    putHtml(p, ui.text, 'text', k);
    changed = patch.map((e) => e[0]);
    announce(ui);
  }
  graphStep(ui, p, k, changed);
  p.step = k;
  ui.slider.value = String(k);
  // The bar's words and states are written only where they change (a rewritten text is laid out again).
  setText(ui.label, p.n > 0 ? say(ui.words, 'step_of', 'step {k} of {n}', { k: k, n: p.n - 1 }) : '');
  const lesson = p.data.lesson;
  setProp(ui.buttons.first, 'disabled', k <= 0);
  setProp(ui.buttons.last, 'disabled', k >= p.n - 1);
  // In a lesson, Next after the last step opens the next link and Prev at step 0 the previous one.
  setProp(ui.buttons.prev, 'disabled', k <= 0 && !(lesson && lesson.has_prev));
  setProp(ui.buttons.next, 'disabled', k >= p.n - 1 && !(lesson && lesson.has_next));
  setProp(ui.buttons.next, 'title', k >= p.n - 1 && lesson && lesson.has_next
    ? say(ui.words, 'next_lesson', 'Next link of the lesson (→ or Page Down)')
    : say(ui.words, 'next_title', 'Next step (→ or Page Down)'));
  setProp(ui.buttons.prev, 'title', k <= 0 && lesson && lesson.has_prev
    ? say(ui.words, 'prev_lesson', "Previous link's last step (← or Page Up)")
    : say(ui.words, 'prev_title', 'Previous step (← or Page Up)'));
  setData(ui.root, 'step', String(k));
  setData(ui.root, 'traceStep', String(traceOf(p, k)));
  setData(ui.host, 'frame', `${p.animId}:${k}`);
  // Everything above only wrote; now the page is read once (the lens, where the step's node is), then written again
  // (the lens, the scrolls): one layout in the key press, not one per read after a write.
  const follow = !(opts && opts.noFollow);
  const cur = p.current && p.current[k] && p.els[p.current[k]];
  const lensAt = lensMeasure(ui, p);
  const seen = follow && cur && !p.data.embedded ? viewMeasure(ui, p, cur) : null;
  lensShow(ui, p, lensAt);
  markInspector(p, k);
  // Work nobody sees in the picture waits until it is painted: the teacher's report to the class's feed, the
  // address bar's step= (and the tab's copy of it).
  p.later.add('report', () => reportStep(p));
  if (p.data.share_url && !(opts && opts.noUrl)) {
    const t = traceOf(p, k), program = p.data.program_id;
    p.later.add('url', () => { if (ui.root.isConnected) urlStep(t, program); });
  }
  if (p.onStep) p.onStep(traceOf(p, k));
  if (seen) scrollInView(ui, p, seen, false);
  else if (follow) keepInView(ui, p, false);
  else showInHost(ui, p);  // not followed on the page (a notebook opening, a step set from Python): in its box
}

function afterPaint(run) {
  // A batch of ``p.later``: at the end of the next frame (after its paint), or within 100 ms in a tab that draws
  // no frames (hidden: a teacher's autoplay still reports its steps).
  requestAnimationFrame(() => setTimeout(run, 0));
  setTimeout(run, 100);
}

function scrollStop(ui, bodyScrolls) {
  // The explanation scrolls (player.css: the whole box, or on a projector its body under the headline): the part
  // that scrolls is a Tab stop, a region named "Explanation of the step", so a keyboard scrolls it too (↑/↓).
  const [on, off] = bodyScrolls ? [ui.text, ui.expl] : [ui.expl, ui.text];
  for (const a of ['tabindex', 'role', 'aria-label']) off.removeAttribute(a);
  on.setAttribute('tabindex', '0');
  on.setAttribute('role', 'region');
  on.setAttribute('aria-label', say(ui.words, 'explanation', 'Explanation of the step'));
}

function announce(ui) {
  // What a screen reader says for a step: its title ("Step 3 of 17: t14 → t13 through log"), the arithmetic
  // line, then "details below" (the whole explanation, hundreds of words, is read where it stands).
  const arith = ui.text.querySelector('.lgl-arith');
  let line = '';
  if (arith) {
    const copy = arith.cloneNode(true);
    copy.querySelectorAll('.lgl-term').forEach((t) => t.append(' '));
    line = copy.textContent.replace(/\s+/g, ' ').trim();
  }
  const parts = [ui.title.textContent.trim(), line, say(ui.words, 'details_below', 'Details below.')];
  ui.announcement.textContent = parts.filter(Boolean).join(' · ');
}

function checkMarks(ui, p, marks) {
  // Nodes a page marks (the gradient detective's checks: ``[id, "pass" | "fail", words]``; the practice's asked
  // node: "ask"): an attribute the
  // stylesheet outlines by (a step's look rewrites a node's class and content, never this attribute), and the
  // words join the node's spoken name.
  const want = new Map((marks || []).map((m) => [m[0], m]));
  for (const id of Object.keys(p.els || {})) {
    const g = p.els[id];
    const m = want.get(id);
    if (m) g.setAttribute('data-lucid-check', ['fail', 'ask'].includes(m[1]) ? m[1] : 'pass');
    else if (g.hasAttribute('data-lucid-check')) g.removeAttribute('data-lucid-check');
  }
  const words = new Map(Array.from(want.values(), (m) => [m[0], String(m[2] || '')]));
  const same = p.checkWords && p.checkWords.size === words.size
    && Array.from(words).every(([id, w]) => p.checkWords.get(id) === w);
  p.checkWords = words;
  if (!same && p.walk && p.walk.length) { p.labels.clear(); graphStep(ui, p, p.step); }
}

function markInspector(p, k) {
  // The node inspector under the graph was drawn at the server's step (``data.step``): once the player shows
  // another one, it is marked, and its note says which step it shows (the server hears of steps only on a click).
  const key = p.data && p.data.inspector_key;
  const box = key && document.querySelector('.st-key-' + key);
  if (box) box.toggleAttribute('data-lucid-stale', p.n > 0 && traceOf(p, k) !== p.data.step);
}

function reportStep(p) {
  // A teacher's player in a class reports each step it shows: the room's feed follows (lucid.live_class.feed).
  const room = p.data && p.data.room;
  if (!room || room.role !== 'teacher' || !p.n) return;
  const t = traceOf(p, p.step);
  if (p.reported === t && p.reportedProgram === p.programId) return;
  p.reported = t;
  p.reportedProgram = p.programId;
  p.trigger('step', { step: t, program: p.programId });
}

function followRoom(ui, p, root) {
  // A student's player reads the room's feed in a loop (a tiny JSON: no script run on the server; with hold_ms the
  // server holds a read naming the version seen until the feed changes) and shows the teacher's step; it asks the
  // server for a rerun only when the program or the question changed.
  const room = p.data.room;
  if (!room || room.role !== 'student' || !room.feed) return null;
  const lostMs = ROOM_LOST_MS + (room.hold_ms || 0);
  let busy = false;
  let lastOk = Date.now();
  const status = (state) => roomStatus(ui, state);
  const ask = (why) => {
    // Asked once per reason; asked again (after ROOM_REASK_MS, doubling) while the reason holds: the rerun it
    // asked for was lost or did not catch up (a reload at that moment, a dropped message).
    const now = Date.now();
    if (p.roomAsked === why && now < (p.roomAskAgain || 0)) return;
    p.roomAskWait = p.roomAsked === why ? Math.min((p.roomAskWait || ROOM_REASK_MS) * 2, ROOM_REASK_MAX_MS)
      : ROOM_REASK_MS;
    p.roomAskAgain = now + p.roomAskWait;
    p.roomAsked = why;
    root.dataset.roomAsked = why;
    p.trigger('room', why);
  };
  const poll = async () => {
    if (busy || !root.isConnected) return;
    busy = true;
    const abort = new AbortController();
    const timer = setTimeout(() => abort.abort(), lostMs);
    try {
      const url = room.hold_ms ? `${room.feed}?v=${encodeURIComponent(root.dataset.roomVersion || '')}` : room.feed;
      const r = await fetch(url, { cache: 'no-store', signal: abort.signal });
      if (r.status === 404) { lastOk = Date.now(); status('ended'); ask('gone'); return; }
      if (!r.ok) return;
      const f = await r.json();
      lastOk = Date.now();
      status('');  // connected again: the steps below catch up with the teacher
      root.dataset.roomVersion = String(f.v);
      root.dataset.teacherStep = String(f.step);
      const now = p.data.room;
      if (f.q !== now.question) {
        // A question opened, was revealed or closed: the class panel's watcher (``lucid.ui.live_class.room_watch``)
        // reruns that panel alone (room_events.js); without one on the page, the whole page runs again.
        p.roomFeed = f;
        if (p.roomAsked !== 'q' + f.q) {
          p.roomWatched = roomAnnounce(f);
          if (p.roomWatched) p.roomAsked = 'q' + f.q; else ask('q' + f.v);
        }
      }
      // The teacher sent (or stopped) an exercise: the page runs again to offer it (each student starts it).
      if (f.x !== undefined && now.exercise !== undefined && f.x !== now.exercise) { ask('x' + f.x); return; }
      if (f.program !== p.programId) { if (now.follow) ask('p' + f.v); return; }
      // The teacher draws the graph another way: the page runs again with that drawing.
      if (now.follow && f.d !== undefined && now.drawing && f.d !== now.drawing) { ask('d' + f.d); return; }
      if (f.q !== now.question && !p.roomWatched) return;
      if (now.follow && p.n > 0 && f.step !== traceOf(p, p.step)) {
        if (p.playing) setPlaying(ui, p, false);
        show(ui, p, playerOf(p, f.step));
      }
    } catch (e) { /* offline, or the server restarting: the next tick asks again */ } finally {
      clearTimeout(timer);
      busy = false;
    }
  };
  const watch = () => {
    // No feed read for ROOM_LOST_MS (the network cut, the server gone): the student is told at once that the
    // screen no longer follows the teacher, rather than reading a stale step as if it were live.
    if (!root.isConnected) return;
    if (!navigator.onLine || Date.now() - lastOk > lostMs) status('lost');
    poll();
  };
  const offline = () => status('lost');
  const lastQuestion = (e) => {
    if (p.roomFeed) Object.assign(e.detail, { q: p.roomFeed.q, card: p.roomFeed.card });
  };
  window.addEventListener('offline', offline);
  window.addEventListener(ROOM_QUESTION_ASK, lastQuestion);
  poll();
  const every = setInterval(watch, room.poll_ms || 400);
  return { stop: () => {
    clearInterval(every);
    window.removeEventListener('offline', offline);
    window.removeEventListener(ROOM_QUESTION_ASK, lastQuestion);
    status('');
  } };
}

const ROOM_LOST_MS = 1800;
const ROOM_REASK_MS = 5000;
const ROOM_REASK_MAX_MS = 60000;
/** A student's feed unread this long (past a held read's hold_ms): "not connected" (a hiccup is not a loss). */

function roomStatus(ui, state) {
  // The class's connection in the player's bar (aria-live): "" connected, "lost" or "ended". While lost the
  // page's own "following the teacher" line is hidden too (player.css), since the page cannot know it is stale.
  if (ui.roomState === state) return;
  ui.roomState = state;
  ui.roomStatus.textContent = state === 'lost'
    ? say(ui.words, 'room_lost', 'Not connected · not following the teacher')
    : state === 'ended' ? say(ui.words, 'room_ended', 'The class has ended') : '';
  ui.roomStatus.hidden = !state;
  ui.root.dataset.roomState = state || 'live';
  if (state === 'lost') document.body.dataset.lucidRoom = 'lost';
  else delete document.body.dataset.lucidRoom;
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

function speedChoice(ui, p, data) {
  // The speed list comes from the server (its labels are the link's speed= words); a choice plays at once
  // and is reported, so the server keeps it (and the link) for the next run.
  const speeds = data.speeds || [];
  ui.speed.style.display = speeds.length ? '' : 'none';
  const labels = speeds.map((s) => s[0]).join('|') + '|' + say(ui.words, 'per_step', '{s} s / step');
  if (ui.speed.dataset.labels !== labels) {
    ui.speed.innerHTML = '';
    for (const [name, seconds] of speeds) {
      ui.speed.appendChild(el('option', { value: name, title: name },
                              say(ui.words, 'per_step', '{s} s / step', { s: seconds })));
    }
    ui.speed.dataset.labels = labels;
  }
  if (data.speed) ui.speed.value = data.speed;
  ui.speed.onchange = () => {
    const chosen = speeds.find((s) => s[0] === ui.speed.value);
    if (!chosen) return;
    p.data = { ...p.data, seconds: chosen[1], speed: chosen[0] };
    if (p.playing) setPlaying(ui, p, true);
    p.trigger('speed', chosen[0]);
  };
}

function storedStep(programId, fallback) {
  let raw = null;
  try { raw = sessionStorage.getItem('lucid-step:' + programId); } catch (e) { raw = null; }
  return storedStepOf(raw, fallback);
}

function setPlaying(ui, p, on) {
  if (p.timer) { clearTimeout(p.timer); p.timer = null; }
  const begin = playStart(p.step, p.n);
  p.playing = on && begin.playing;
  const b = ui.buttons.play;
  // Written only where they change: every step key stops autoplay, and a rewritten label or icon is laid out again.
  setText(b.querySelector('.lucid-label'), p.playing ? say(ui.words, 'pause', 'Pause') : say(ui.words, 'play', 'Play'));
  setAttr(b.querySelector('.lucid-icon path'), 'd', ICONS[p.playing ? 'pause' : 'play']);
  setData(ui.root, 'playing', p.playing ? '1' : '0');
  setData(ui.root, 'motion', reducedMotion() ? 'reduced' : 'full');
  if (!p.playing) return;
  if (begin.step !== p.step) show(ui, p, begin.step);  // Play at the last step rewinds to the seed
  // Each step is due at start + i * interval: a late tick never delays the ones after it.
  const start = performance.now();
  const from = p.step;
  const interval = p.data.seconds * 1000;
  let i = 0;
  const tick = () => {
    if (!ui.root.isConnected || !p.playing) return;
    const next = playTick(from + i, p.n);
    i += 1;
    show(ui, p, next.step);
    if (!next.playing) { setPlaying(ui, p, false); return; }
    p.timer = setTimeout(tick, tickDelay(start, i, interval, performance.now()));
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

/** Controls that Space presses, toggles or picks (a button, an expander's summary, a check box, a tab...). */
const SPACE_OWNERS = 'button, a[href], summary, input, select, textarea, label, [contenteditable], [role=button], '
  + '[role=checkbox], [role=switch], [role=radio], [role=tab], [role=menuitem], [role=menuitemcheckbox], '
  + '[role=menuitemradio], [role=option], [role=link], [role=treeitem], [role=gridcell]';
/** Controls whose arrow keys move inside them (radio buttons, tabs, menus, trees, grids, spin buttons). */
const ARROW_OWNERS = 'input[type=radio], [role=radio], [role=radiogroup], [role=tab], [role=tablist], [role=menu], '
  + '[role=menubar], [role=menuitem], [role=tree], [role=treeitem], [role=grid], [role=treegrid], [role=spinbutton]';

function ownsKey(target, key, root) {
  // Whether the focused control needs ``key`` itself, so the player leaves it alone: Space on any button, link,
  // summary or form control (on the player's own step slider it still plays), arrows inside radio groups,
  // tabs and menus. Nothing focused (the page itself, a presenter's clicker) and the player's own box do not.
  if (!target || !target.closest || target === root || target === document.body) return false;
  if (key === ' ' || key === 'Spacebar') {
    if (target.closest('input.lucid-step')) return false;
    return !!target.closest(SPACE_OWNERS);
  }
  if (/^Arrow/.test(key)) return !!target.closest(ARROW_OWNERS);
  return false;
}

export function mount(parentElement, data, setTriggerValue, hooks) {
  // Draw (or update) the player inside ``parentElement`` with ``data`` (an Animation and view options);
  // ``setTriggerValue(name, value)`` reports a click, a speed or a lesson move to the host;
  // ``hooks.onStep(traceStep)`` hears every step shown. Returns the cleanup (listeners removed).
  let root = parentElement.querySelector('.' + PREFIX);
  const ui = root ? root.__ui : build(parentElement);
  root = ui.root;
  root.__ui = ui;
  const p = root.__player || (root.__player = { step: 0, playing: false, later: laterQueue(afterPaint) });
  p.later.flush();  // what the last steps left for after their paint happens before this run's changes
  p.trigger = setTriggerValue;
  p.onStep = hooks && hooks.onStep;
  const firstTime = p.animId === undefined;
  const before = p.data;
  p.data = data;
  if (data.room && data.room.role === 'teacher' && before && !before.room) {
    // A class was just started from below the graph: its panel (join link, QR code) is at the top of the page.
    scroller(root).scrollTo({ top: 0 });
  }
  relabel(ui, data.words);
  ui.buttons.play.querySelector('.lucid-label').textContent = p.playing ? say(ui.words, 'pause', 'Pause')
                                                                        : say(ui.words, 'play', 'Play');
  // The keys of the graph itself (graphText) are said after the player's, in both hosts.
  const keysHelp = [data.keys_help, say(ui.words, 'graph_keys', GRAPH_KEYS)].filter(Boolean).join('\n');
  ui.keys.title = keysHelp;
  ui.keys.setAttribute('aria-label', keysHelp);
  speedChoice(ui, p, data);
  const lessonMoved = before && before.lesson && data.lesson && before.lesson.at !== data.lesson.at;
  p.lessonSent = false;
  ui.lessonAt.style.display = data.lesson ? '' : 'none';
  ui.lessonAt.textContent = data.lesson ? say(ui.words, 'lesson', 'Lesson {where}', { where: data.lesson.where }) : '';
  ui.lessonAt.title = data.lesson ? data.lesson.title : '';
  const heading = data.lesson && data.lesson.heading ? data.lesson.heading : '';
  ui.lessonTitle.style.display = heading ? '' : 'none';
  ui.lessonTitle.textContent = heading;
  ui.lessonTitle.title = data.lesson ? data.lesson.title : '';
  ui.inspect.style.display = data.inspector_key ? '' : 'none';
  ui.inspect.onclick = () => {
    const jump = () => {
      const target = data.inspector_key && document.querySelector('.st-key-' + data.inspector_key);
      if (!target) return;
      const y = pageTop(target) - data.top - ui.bar.offsetHeight - 12;
      scroller(ui.root).scrollTo({ top: Math.max(0, y), behavior: 'auto' });
    };
    // at once, and again shortly after: a refit of the graph in the same moment may scroll the page back
    jump();
    setTimeout(jump, 300);
    setTimeout(jump, 1000);
  };
  root.classList.toggle('lucid-classroom', !!data.classroom);
  root.classList.toggle('lucid-beside', !!data.beside);
  scrollStop(ui, !!(data.classroom && data.beside));
  root.style.setProperty('--lucid-top', data.top + 'px');
  if (p.animId !== data.anim_id && !data.anim) {
    // Drawn anew without the animation (the click that started this run said the player held it): the page's copy
    // of it, or the server is asked for it (the run that starts sends it whole).
    const kept = HELD.get(data.anim_id);
    if (!kept) {
      setTriggerValue('missing', data.anim_id);
      return () => {};
    }
    data = { ...data, anim: kept };
    p.data = data;
  }
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
    const follow = !(firstTime && !data.follow_first && (!data.classroom || data.embedded));
    show(ui, p, playerOf(p, keep), { noFollow: !follow });
    if (follow) settle(ui, p);
  } else {
    fit(ui, p);
    if (lessonMoved) show(ui, p, playerOf(p, data.step));  // a lesson's next link with the same program
    if (p.playing && before && before.seconds !== data.seconds) setPlaying(ui, p, true);
    if (before && (before.classroom !== data.classroom || before.zoom !== data.zoom)) settle(ui, p);
  }
  markInspector(p, p.step);  // a run (a click) drew the inspector at the step it names
  checkMarks(ui, p, data.marks);
  if (data.share_url && p.n > 0) {
    // A rerun that rewrote the URL from the server's side (e.g. a view option) may carry an older step.
    for (const ms of [0, 300, 1000]) {
      setTimeout(() => { if (root.isConnected) urlStep(traceOf(p, p.step), p.data.program_id); }, ms);
    }
  }
  const go = (k) => {
    setPlaying(ui, p, false);
    const lesson = p.data.lesson;
    const move = lesson && (k > p.n - 1 && lesson.has_next ? 'next' : k < 0 && lesson.has_prev ? 'prev' : null);
    if (move) {
      // Past either end of a lesson's link: the server opens the neighbouring link (once per press).
      if (!p.lessonSent) p.trigger('lesson', { move, at: lesson.at, program: p.programId });
      p.lessonSent = true;
      return;
    }
    show(ui, p, k);
  };
  ui.buttons.first.onclick = () => go(0);
  ui.buttons.prev.onclick = () => go(p.step - 1);
  ui.buttons.next.onclick = () => go(p.step + 1);
  ui.buttons.last.onclick = () => go(p.n - 1);
  ui.buttons.play.onclick = () => setPlaying(ui, p, !p.playing);
  ui.slider.oninput = () => go(parseInt(ui.slider.value, 10) || 0);
  const onKey = (e) => {
    if (e.defaultPrevented || e.ctrlKey || e.altKey || e.metaKey || typing(e.target) || !root.isConnected) return;
    if (p.n <= 1 && !p.data.lesson) return;
    const k = keyStep(e.key, p.step, p.n);
    if (k === null || ownsKey(e.target, e.key, root)) return;
    if (k === 'play') {
      e.preventDefault();
      setPlaying(ui, p, !p.playing);
      return;
    }
    if (k === null) return;
    e.preventDefault();
    go(k);
  };
  // Embedded in a notebook, the keys belong to the player only while it has the focus (the notebook has its
  // own shortcuts); in the app they work anywhere on the page, for a presenter's clicker.
  const keyTarget = data.embedded ? root : document;
  if (data.embedded) {
    root.tabIndex = 0;
    root.setAttribute('role', 'group');
    root.setAttribute('aria-label', say(ui.words, 'player', 'Backward pass player'));
    root.setAttribute('data-lm-suppress-shortcuts', 'true');
  }
  keyTarget.addEventListener('keydown', onKey);
  const goto = data.room && data.room.goto;
  if (goto && p.n > 0 && p.gotoDone !== goto.id) {
    // The teacher revealed a question: their player shows the step the class predicted (and reports it).
    p.gotoDone = goto.id;
    setPlaying(ui, p, false);
    show(ui, p, playerOf(p, goto.step));
  }
  if (p.walk && before && JSON.stringify(before.words || {}) !== JSON.stringify(data.words || {})) {
    // The language was switched: the graph's name and every node's name in the new words.
    p.labels.clear();
    const svg = ui.host.querySelector('svg');
    if (svg) svg.setAttribute('aria-label', say(ui.words, 'graph_label', 'Computation graph, {n} nodes', { n: p.walk.length }));
    graphStep(ui, p, p.step);
  }
  reportStep(p);
  const poller = followRoom(ui, p, root);
  const onResize = () => fit(ui, p);
  window.addEventListener('resize', onResize);
  // A graph fitted whole to the room below it is fitted again when the page above it changes height
  // (the editor folded after a Run, a message gone), or it would stay as small as the moment it was drawn;
  // in every mode the graph is fitted again when its host's width changes (observed below).
  let queued = false;
  const page = root.closest('[data-testid="stMainBlockContainer"]') || document.body;
  const watcher = typeof ResizeObserver === 'undefined' ? null : new ResizeObserver(() => {
    if (queued) return;
    queued = true;
    requestAnimationFrame(() => {
      queued = false;
      if (!(root.isConnected && p.data)) return;
      if (!(p.data.whole_graph && p.data.zoom === 'screen')) {
        // Every other mode: fitted again when the host's width changed (a notebook's column laid out after a
        // reload, a sidebar opened, the window resized), the step's node kept in view in the graph's box.
        if (!needsRefit(p.fitted, hostSize(ui))) return;
        fit(ui, p);
        showInHost(ui, p);
        return;
      }
      const before = p.fittedTop;
      fit(ui, p);
      // The page above moved the graph (the editor folded): it is now fitted to the room below its new
      // place, which is on screen when the page is seen from the top, as after a new drawing (see settle).
      if (before !== undefined && Math.abs(p.fittedTop - before) > 1) scroller(ui.root).scrollTo({ top: 0 });
    });
  });
  if (watcher) {
    watcher.observe(page);
    watcher.observe(ui.host);  // its own width, in every mode: the page's box may not change with it (a notebook)
  }
  return () => {
    if (poller) poller.stop();
    keyTarget.removeEventListener('keydown', onKey);
    window.removeEventListener('resize', onResize);
    if (watcher) watcher.disconnect();
  };
}

export function showStep(parentElement, traceStep) {
  // Show trace step ``traceStep`` in the player inside ``parentElement`` (a host asked for it), pausing autoplay.
  // The page is not scrolled to it: the step was set from elsewhere (a notebook cell further down).
  const root = parentElement.querySelector('.' + PREFIX);
  const p = root && root.__player;
  if (!p || p.n === undefined) return;
  setPlaying(root.__ui, p, false);
  show(root.__ui, p, playerOf(p, traceStep), { noFollow: true });
}

export function shownStep(parentElement) {
  // The trace step on screen in the player inside ``parentElement`` (null before the first picture).
  const root = parentElement.querySelector('.' + PREFIX);
  const p = root && root.__player;
  return p && p.n !== undefined ? traceOf(p, p.step) : null;
}

// The notebook host (anywidget). Synced traits: ``data`` (the player's data, made once by Python), ``step``
// (the trace step on screen, both ways) and ``inspection`` (the node inspector's facts, HTML escaped by
// Python). Stepping never waits for the kernel: the picture changes at once, and the step is written back
// to the kernel once the person has stopped on a step for STEP_SYNC_MS (one message for a burst of presses).
export const STEP_SYNC_MS = 400;

function renderWidget({ model, el: host }) {
  const stage = el('div', { class: 'lucid-widget' });
  const playerBox = el('div', { class: 'lucid-widget-player' });
  const facts = el('div', { class: 'lucid-facts', 'aria-live': 'polite' });
  stage.append(playerBox, facts);
  host.appendChild(stage);
  let pending = null;   // the step waiting to be written back, and its timer
  let lastSent = null;  // the last step written back (its echo from the kernel is not a request to move)
  const writeBack = () => {
    const t = pending.step;
    pending = null;
    if (t === model.get('step')) return;
    lastSent = t;
    model.set('step', t);
    model.save_changes();
  };
  const onStep = (t) => {
    if (pending) clearTimeout(pending.timer);
    pending = t === model.get('step') ? null : { step: t, timer: setTimeout(writeBack, STEP_SYNC_MS) };
  };
  const trigger = (name, value) => {
    // A click on a node asks the kernel for its facts (values, gradient, op, local derivatives).
    if (name === 'node' && value) model.send({ kind: 'inspect', node: value.node, step: value.step });
  };
  let cleanup = null;
  const draw = () => {
    if (cleanup) cleanup();
    const data = { ...model.get('data'), step: model.get('step') };
    cleanup = mount(playerBox, data, trigger, { onStep });
  };
  const showFacts = () => { facts.innerHTML = model.get('inspection') || ''; };
  const onStepChanged = () => {
    const t = model.get('step');
    if (t === lastSent) { lastSent = null; return; }
    if (t !== shownStep(playerBox)) showStep(playerBox, t);
  };
  model.on('change:data', draw);
  model.on('change:step', onStepChanged);
  model.on('change:inspection', showFacts);
  draw();
  showFacts();
  return () => {
    if (pending) clearTimeout(pending.timer);
    model.off('change:data', draw);
    model.off('change:step', onStepChanged);
    model.off('change:inspection', showFacts);
    if (cleanup) cleanup();
  };
}

export default function host(component) {
  // Streamlit passes its component object; anywidget passes nothing and expects the widget.
  if (component === undefined) return { render: renderWidget };
  const { data, setTriggerValue, parentElement } = component;
  return mount(parentElement, data, setTriggerValue);
}
