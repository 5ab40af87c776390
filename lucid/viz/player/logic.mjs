// The player's pure logic: numbers in, numbers out, no DOM. player.js imports it (the package hands the hosts
// player.js with this module's text put in place of that import, see lucid.viz.player.script), and
// tests/js/player_logic.test.mjs runs it under `node --test`.

/** The look index of a node or edge as the laid-out SVG drew it (no step's variant applied). */
export const BASE = -1;

export function clampStep(k, n) {
  // The player step shown for a request of step k in a player of n steps (0 when there are none).
  return Math.max(0, Math.min(k, n - 1));
}

export function playStart(step, n) {
  // Pressing Play: from the last step it rewinds to the seed (step 0), otherwise it plays on from here;
  // a pass of one step never plays.
  if (n <= 1) return { step: 0, playing: false };
  const at = clampStep(step, n);
  return { step: at >= n - 1 ? 0 : at, playing: true };
}

export function playTick(step, n) {
  // One autoplay tick from ``step``: one step on, and playing stops on reaching the last step.
  const next = clampStep(step + 1, n);
  return { step: next, playing: next < n - 1 };
}

export function traceStepOf(traceSteps, k) {
  // The step of the backward trace that player step k shows (a collapsed drawing steps box by box:
  // player step k shows the trace up to traceSteps[k]); without traceSteps they are the same.
  return traceSteps ? traceSteps[Math.max(0, Math.min(k, traceSteps.length - 1))] : k;
}

export function playerStepOf(traceSteps, t) {
  // The player step that shows trace step t: the first one whose run of trace steps reaches t.
  if (!traceSteps) return t;
  let lo = 0, hi = traceSteps.length - 1;
  while (lo < hi) { const mid = (lo + hi) >> 1; if (traceSteps[mid] < t) lo = mid + 1; else hi = mid; }
  return lo;
}

export function looksAt(changes, variants, k) {
  // Map element id -> variant index of every element step k shows in a look of its own (the others are BASE).
  const looks = new Map();
  for (let i = 1; i <= k; i++) for (const v of changes[i]) looks.set(variants[v][0], v);
  return looks;
}

export function lookPatch(shown, target) {
  // [id, look] pairs that turn the looks ``shown`` into ``target`` (both from looksAt): only what differs,
  // the elements going back to their drawn look first.
  const patch = [];
  for (const id of shown.keys()) if (!target.has(id)) patch.push([id, BASE]);
  for (const [id, v] of target) if (shown.get(id) !== v) patch.push([id, v]);
  return patch;
}

export function stepPatches(changes, variants) {
  // Per step k >= 1, the patches between steps k-1 and k, made once: ``forward[k]`` turns step k-1's looks
  // into step k's and ``backward[k]`` turns step k's back into step k-1's, so a press of → or ← touches only
  // the elements that step changes, however long the trace.
  const forward = [[]], backward = [[]];
  let looks = new Map();
  for (let k = 1; k < changes.length; k++) {
    const next = new Map(looks);
    for (const v of changes[k]) next.set(variants[v][0], v);
    forward.push(lookPatch(looks, next));
    backward.push(lookPatch(next, looks));
    looks = next;
  }
  return { forward, backward };
}

export function keyStep(key, step, n) {
  // The step a presenter's key asks for from ``step`` (unclamped: past either end a lesson moves on),
  // 'play' for Space, null for any other key.
  if (key === 'ArrowRight' || key === 'PageDown') return step + 1;
  if (key === 'ArrowLeft' || key === 'PageUp') return step - 1;
  if (key === 'Home') return 0;
  if (key === 'End') return n - 1;
  if (key === ' ' || key === 'Spacebar') return 'play';
  return null;
}

export function say(words, name, fallback, values) {
  // A word of the player in the page's language (``player_words``), else the English one; {k} etc. filled in.
  let text = (words && typeof words[name] === 'string') ? words[name] : fallback;
  for (const [k, v] of Object.entries(values || {})) text = text.split('{' + k + '}').join(String(v));
  return text;
}

export function storedStepOf(raw, fallback) {
  // A step kept in the tab's storage (text, or null when none): a whole number, else ``fallback``.
  return raw !== null && raw !== undefined && /^[0-9]+$/.test(raw) ? Number(raw) : fallback;
}

export function bodyFont(sizes) {
  // The font size most node text is set in (names, values, gradients), the smaller one on a tie; 0 for none.
  const counts = new Map();
  for (const f of sizes) if (f > 0) counts.set(f, (counts.get(f) || 0) + 1);
  let body = 0, most = 0;
  for (const [f, c] of counts) if (c > most || (c === most && f < body)) { body = f; most = c; }
  return body;
}

export function fitScale(zoom, { w, h, width, height, maxScale, minScale, whole }) {
  // The scale the graph (w × h px at scale 1) is drawn at in ``width`` × ``height`` px of room:
  // a number is that fixed scale; "width" fits the width only; "screen" fits both (never past maxScale),
  // and outside Classroom mode (``whole`` false) never shrinks past minScale (the page scrolls instead).
  if (typeof zoom === 'number') return zoom;
  if (zoom === 'width') return Math.min(width / w, maxScale);
  if (whole) return Math.min(width / w, height / h, maxScale);
  return Math.max(Math.min(width / w, height / h, maxScale), minScale);
}

/** A player narrower than this (CSS px) puts the explanation below the graph, as a phone's screen does. */
export const NARROW_PX = 640;

export function hostRoom(rectWidth, scrollbar) {
  // The width the graph is fitted to: the host's laid-out width (its bounding box, which a notebook's output
  // area has only once it is attached and shown) less its own vertical scroll bar; null while it has none (not
  // laid out yet: the player fits again when it gets a size, never to a guessed width that would clip it).
  if (!(rectWidth > 0)) return null;
  return Math.max(1, rectWidth - (scrollbar > 0 ? scrollbar : 0));
}

export function needsRefit(fitted, now) {
  // Whether the host's size changed since the graph was last fitted ({width, rootWidth} each time, or
  // undefined before the first fit): by a pixel or more, so sub-pixel rounding never loops the observer.
  if (!fitted) return true;
  return Math.abs(now.width - fitted.width) >= 1 || Math.abs(now.rootWidth - fitted.rootWidth) >= 1;
}

export function isNarrow(rootWidth) {
  // Whether the player's own box is too narrow for the explanation beside the graph (a notebook's column).
  return rootWidth > 0 && rootWidth < NARROW_PX;
}

export function boxOf(b, m) {
  // An SVG bounding box {x, y, width, height} mapped by the scale-and-translate matrix m ({a, d, e, f}).
  const xs = [m.a * b.x + m.e, m.a * (b.x + b.width) + m.e];
  const ys = [m.d * b.y + m.f, m.d * (b.y + b.height) + m.f];
  return { left: Math.min(...xs), right: Math.max(...xs), top: Math.min(...ys), bottom: Math.max(...ys) };
}

export function union(a, b) {
  return { left: Math.min(a.left, b.left), right: Math.max(a.right, b.right),
           top: Math.min(a.top, b.top), bottom: Math.max(a.bottom, b.bottom) };
}

export function overlaps(box, view, pad) {
  // Whether ``box`` reaches into ``view`` grown by ``pad`` on every side.
  return box.right >= view.left - pad && box.left <= view.right + pad
    && box.bottom >= view.top - pad && box.top <= view.bottom + pad;
}

export const LENS_PAD = 6;

export function lensView({ node, edge, width, maxH, kMin, kMax, hasCard }) {
  // What the lens shows for the step's node box ``node`` (and the box of the edge its gradient takes, or null),
  // in ``width`` × ``maxH`` px, magnified kMin to kMax times: the node with its edge when both fit at kMin
  // or more, else the node alone, else its card when it has one ({mode: 'card'}). In graph mode: the
  // viewBox (in the graph's units), the lens SVG's size in px, and where its scroll opens.
  const pad = LENS_PAD;
  const region = edge ? union(node, edge) : node;
  const fits = (b) => Math.min(width / (b.right - b.left + 2 * pad), maxH / (b.bottom - b.top + 2 * pad), kMax);
  const shown = fits(region) >= kMin ? region : fits(node) >= kMin ? node : null;
  if (!shown && hasCard) return { mode: 'card' };
  const box = shown || node;
  const k = Math.max(shown ? 0 : kMin, fits(box));
  const left = box.left - pad, right = box.right + pad, top = box.top - pad, bottom = box.bottom + pad;
  const vw = Math.max(right - left, width / k);
  const vx = left - (vw - (right - left)) / 2;
  return { mode: 'graph', k, viewBox: [vx, top, vw, bottom - top],
           width: Math.round(vw * k), height: Math.round((bottom - top) * k),
           // A node that does not fit even alone (no card for it): open on its top-left (the name).
           scrollLeft: shown ? 0 : (node.left - vx) * k - 8 };
}

export function inViewBox(box, edge, screenTop, screenBottom, viewWidth) {
  // The box kept in view for the step: the node with its edge when both fit the screen's height and the
  // graph's width (a long edge across a wide graph must not push the node itself out of view), else the node.
  if (!edge) return box;
  const u = union(box, edge);
  return u.bottom - u.top <= screenBottom - screenTop && u.right - u.left <= viewWidth ? u : box;
}

export function scrollToShow(box, view, top, bottom) {
  // How far to scroll so ``box`` is inside ``view`` horizontally (centred in it when it was not) and inside
  // [top, bottom] of the screen vertically (centred in that when it was not): {dx, dy}, null where it is.
  let dx = null, dy = null;
  if (box.left < view.left || box.right > view.right) {
    dx = box.left - view.left - Math.max(0, (view.width - (box.right - box.left)) / 2);
  }
  if (box.top < top || box.bottom > bottom) {
    dy = box.top - top - Math.max(0, (bottom - top - (box.bottom - box.top)) / 2);
  }
  return { dx, dy };
}

export function tickDelay(start, i, interval, now) {
  // Autoplay: step i + 1 is due at start + (i + 1) * interval, so a late tick never delays the ones after it.
  return Math.max(0, start + (i + 1) * interval - now);
}

// The graph as text (lucid.viz.player.node_text): every drawn tensor node's spoken name at a step, the node
// receiving gradient marked, and the keys that walk the nodes.

export function gradHistory(grads) {
  // Map node id -> [[trace step, gradient text, final], ...] in step order, from node_text's
  // [[trace step, node id, gradient text, final], ...].
  const out = new Map();
  for (const [t, id, text, final] of grads || []) {
    if (!out.has(id)) out.set(id, []);
    out.get(id).push([t, text, final]);
  }
  return out;
}

export function gradOf(history, id, t) {
  // The gradient node ``id`` shows after trace step ``t`` (its last entry at or before t), or null: pending.
  const h = history.get(id);
  if (!h) return null;
  let found = null;
  for (const e of h) { if (e[0] <= t) found = e; else break; }
  return found;
}

export function nodeName(words, node, grad, names) {
  // "t6, tanh of t5, value 0.7616, gradient 0.4200, final; inputs t5; used by t7": what a screen reader says
  // for ``node`` (an entry of node_text's order) with the gradient ``grad`` (gradOf's entry, null: pending).
  const list = (ids) => ids.map((id) => (names && names[id]) || id).join(', ');
  const head = [node.name];
  if (node.op) head.push(say(words, 'node_op', '{op} of {inputs}', { op: node.op, inputs: list(node.inputs) }));
  else head.push(node.kind === 'const' ? say(words, 'node_const', 'constant') : say(words, 'node_leaf', 'input'));
  head.push(say(words, 'node_value', 'value {value}', { value: node.value }));
  if (node.grad === false) head.push(say(words, 'grad_none', 'no gradient'));
  else if (!grad) head.push(say(words, 'grad_pending', 'gradient pending'));
  else {
    const status = grad[2] ? say(words, 'grad_final', 'final') : say(words, 'grad_partial', 'partial');
    head.push(say(words, 'node_grad', 'gradient {grad}, {status}', { grad: grad[1], status }));
  }
  const tail = [];
  if (node.inputs.length) tail.push(say(words, 'node_inputs', 'inputs {names}', { names: list(node.inputs) }));
  tail.push(node.users.length ? say(words, 'node_users', 'used by {names}', { names: list(node.users) })
    : say(words, 'node_output', 'the output'));
  return [head.join(', '), ...tail].join('; ');
}

export function spokenText(lines) {
  // A node's drawn text lines (a collapsed drawing's boxes) as one name: padding folded, empty lines dropped.
  return lines.map((s) => String(s).replace(/\s+/g, ' ').trim()).filter(Boolean).join(', ');
}

export function walkKey(key, at, n) {
  // The node (index into the walk of n nodes) that ↓ or ↑ moves the focus to from ``at``; null for other keys.
  if (n <= 0) return null;
  if (key === 'ArrowDown') return Math.min(at + 1, n - 1);
  if (key === 'ArrowUp') return Math.max(at - 1, 0);
  return null;
}

export function zoomOf(outerWidth, innerWidth, dpr) {
  // The browser's zoom (1 = 100 %), as far as a page can tell: the window's width in screen pixels over its width
  // in CSS pixels (Chromium zooms CSS pixels, not the window), never more than the device pixel ratio (which
  // zoom raises too: a docked developer panel narrows the page without zooming it). 1 when unknown or under 110 %.
  if (!(outerWidth > 0 && innerWidth > 0)) return 1;
  const z = Math.min(outerWidth / innerWidth, dpr > 0 ? dpr : 1, 5);
  return z >= 1.1 ? Math.round(z * 100) / 100 : 1;
}

export function laterQueue(schedule) {
  // Work a step does that nobody sees in its picture (the address bar, the class's feed), run after the step is
  // painted: ``add(kind, job)`` keeps the last job of each kind until the batch runs, in the order the kinds first
  // came; ``schedule(run)`` is called once per batch (by the player: at the next frame's end, and a timer for a tab
  // that draws no frames) and may call ``run`` more than once: a batch runs once. ``flush()`` runs it now.
  let batch = null;
  const runBatch = (mine) => {
    if (batch !== mine) return;
    batch = null;
    for (const job of mine.values()) job();
  };
  return {
    add(kind, job) {
      if (!batch) {
        const mine = batch = new Map();
        schedule(() => runBatch(mine));
      }
      batch.set(kind, job);
    },
    flush() { if (batch) runBatch(batch); },
    get pending() { return batch ? batch.size : 0; },
  };
}

export function fitKeepsBoxes(before, now) {
  // Whether the boxes measured at the last fit ({scale, zoom, fonts}: the graph's scale, the browser's zoom, how
  // many fonts the page had loaded) still hold: a node's box is in the graph's own units, which only the text's
  // rendered size (its scale, the zoom) and a font arriving change. Undefined before the first fit.
  return !!before && before.scale === now.scale && before.zoom === now.zoom && before.fonts === now.fonts;
}

export function scrollbarShown(offsetWidth, clientWidth, borderLeft, borderRight) {
  // Whether an element shows a vertical scroll bar: its laid-out width less its borders is wider than its inner
  // width by more than rounding (a scroll bar takes 8 px or more; an overlay scroll bar takes none).
  return offsetWidth - (borderLeft || 0) - (borderRight || 0) - clientWidth > 2;
}

export function matchEnds(have, want, same) {
  // How many items at the start (head) and then at the end (tail) of ``have`` and ``want`` pair up by ``same``
  // (never overlapping): a part's children that keep their kinds are updated in place, only the ones between
  // them are made anew.
  let head = 0;
  while (head < have.length && head < want.length && same(have[head], want[head])) head += 1;
  let tail = 0;
  while (tail < have.length - head && tail < want.length - head
         && same(have[have.length - 1 - tail], want[want.length - 1 - tail])) tail += 1;
  return { head, tail };
}
