// The player's pure logic (lucid/viz/player/logic.mjs) under `node --test`; run by tests/viz/test_player_logic.py.
import { test } from 'node:test';
import assert from 'node:assert/strict';

import {
  BASE, bodyFont, boxOf, clampStep, fitKeepsBoxes, fitScale, hostRoom, inViewBox, isNarrow, keyStep, laterQueue,
  lensView, lookPatch, looksAt, matchEnds, NARROW_PX, needsRefit, overlaps,
  playerStepOf, playStart, playTick, say, scrollbarShown, scrollToShow, stepPatches, storedStepOf, tickDelay,
  traceStepOf, union,
} from '../../lucid/viz/player/logic.mjs';

// Three elements over four steps: step 1 marks a and b, step 2 moves a on and marks c, step 3 puts b back.
const VARIANTS = [['a', 'current', '<a1/>'], ['b', 'receiving', '<b1/>'], ['a', 'done', '<a2/>'],
                  ['c', 'current', '<c1/>'], ['b', 'done', '<b2/>']];
const CHANGES = [[], [0, 1], [2, 3], [4]];

function close(actual, expected) {
  // Numbers equal up to rounding (a scale and its inverse do not give back the very same float).
  assert.equal(actual.length, expected.length);
  actual.forEach((a, i) => assert.ok(Math.abs(a - expected[i]) < 1e-9, `${actual} is not ${expected}`));
}

test('a step is clamped into the player, and an empty player stays at 0', () => {
  assert.equal(clampStep(-3, 10), 0);
  assert.equal(clampStep(4, 10), 4);
  assert.equal(clampStep(10, 10), 9);
  assert.equal(clampStep(99, 1), 0);
  assert.equal(clampStep(5, 0), 0);
});

test('a collapsed drawing maps player steps to trace steps and back', () => {
  const runs = [0, 3, 4, 9];  // player step k shows the trace up to runs[k]
  assert.deepEqual([0, 1, 2, 3].map((k) => traceStepOf(runs, k)), [0, 3, 4, 9]);
  assert.equal(traceStepOf(runs, 7), 9);  // past the end: the last
  assert.equal(traceStepOf(runs, -1), 0);
  // the first player step whose run reaches the trace step
  assert.deepEqual([0, 1, 2, 3, 4, 5, 9].map((t) => playerStepOf(runs, t)), [0, 1, 1, 1, 2, 3, 3]);
  assert.equal(traceStepOf(null, 7), 7);
  assert.equal(playerStepOf(null, 7), 7);
});

test('the looks at a step are every change up to it, the latest one per element', () => {
  assert.deepEqual([...looksAt(CHANGES, VARIANTS, 0)], []);
  assert.deepEqual([...looksAt(CHANGES, VARIANTS, 1)], [['a', 0], ['b', 1]]);
  assert.deepEqual([...looksAt(CHANGES, VARIANTS, 3)], [['a', 2], ['b', 4], ['c', 3]]);
});

test('a patch touches only the elements whose look differs, those going back first', () => {
  const at1 = looksAt(CHANGES, VARIANTS, 1), at3 = looksAt(CHANGES, VARIANTS, 3);
  assert.deepEqual(lookPatch(at3, at1), [['c', BASE], ['a', 0], ['b', 1]]);
  assert.deepEqual(lookPatch(at1, at3), [['a', 2], ['b', 4], ['c', 3]]);
  assert.deepEqual(lookPatch(at3, at3), []);
  assert.deepEqual(lookPatch(at1, new Map()), [['a', BASE], ['b', BASE]]);
});

test('per-step patches step forward and back through every step and agree with the looks', () => {
  const { forward, backward } = stepPatches(CHANGES, VARIANTS);
  assert.equal(forward.length, 4);
  assert.deepEqual(forward[0], []);
  assert.deepEqual(forward[2], [['a', 2], ['c', 3]]);
  assert.deepEqual(backward[2], [['c', BASE], ['a', 0]]);
  assert.deepEqual(forward[3], [['b', 4]]);
  assert.deepEqual(backward[3], [['b', 1]]);
  const apply = (looks, patch) => {
    const next = new Map(looks);
    for (const [id, v] of patch) { if (v === BASE) next.delete(id); else next.set(id, v); }
    return next;
  };
  let looks = new Map();
  for (let k = 1; k < CHANGES.length; k++) {
    looks = apply(looks, forward[k]);
    assert.deepEqual([...looks].sort(), [...looksAt(CHANGES, VARIANTS, k)].sort(), `forward to ${k}`);
  }
  for (let k = CHANGES.length - 1; k >= 1; k--) {
    looks = apply(looks, backward[k]);
    assert.deepEqual([...looks].sort(), [...looksAt(CHANGES, VARIANTS, k - 1)].sort(), `back to ${k - 1}`);
  }
  assert.equal(looks.size, 0);
});

test('a step that changes an element twice patches it once, to its last look', () => {
  const { forward } = stepPatches([[], [0, 2]], VARIANTS);
  assert.deepEqual(forward[1], [['a', 2]]);
});

test("a presenter's keys ask for the next, previous, first and last step, and Space plays", () => {
  assert.equal(keyStep('ArrowRight', 4, 10), 5);
  assert.equal(keyStep('PageDown', 4, 10), 5);
  assert.equal(keyStep('ArrowLeft', 4, 10), 3);
  assert.equal(keyStep('PageUp', 0, 10), -1);  // unclamped: at step 0 of a lesson's link, the previous link
  assert.equal(keyStep('ArrowRight', 9, 10), 10);
  assert.equal(keyStep('Home', 4, 10), 0);
  assert.equal(keyStep('End', 4, 10), 9);
  assert.equal(keyStep(' ', 4, 10), 'play');
  assert.equal(keyStep('Spacebar', 4, 10), 'play');
  assert.equal(keyStep('Shift', 4, 10), null);
  assert.equal(keyStep('a', 4, 10), null);
});

test("the player's words come in the page's language with their blanks filled", () => {
  const korean = { step_of: '{n}단계 중 {k}단계' };
  assert.equal(say(korean, 'step_of', 'step {k} of {n}', { k: 2, n: 7 }), '7단계 중 2단계');
  assert.equal(say({}, 'step_of', 'step {k} of {n}', { k: 2, n: 7 }), 'step 2 of 7');
  assert.equal(say(undefined, 'play', 'Play'), 'Play');
  assert.equal(say({ play: 3 }, 'play', 'Play'), 'Play');  // not a string: the English word
  assert.equal(say({}, 'x', '{s} s / {s}', { s: 1.5 }), '1.5 s / 1.5');
});

test("a step kept in the tab's storage is read only when it is a whole number", () => {
  assert.equal(storedStepOf('12', 3), 12);
  assert.equal(storedStepOf('0', 3), 0);
  assert.equal(storedStepOf(null, 3), 3);
  assert.equal(storedStepOf('-1', 3), 3);
  assert.equal(storedStepOf('1e3', 3), 3);
  assert.equal(storedStepOf('', 3), 3);
});

test('the body font is the size most node text is set in, the smaller on a tie', () => {
  assert.equal(bodyFont([14, 14, 9, 14, 9]), 14);
  assert.equal(bodyFont([14, 9, 14, 9]), 9);
  assert.equal(bodyFont([NaN, 0, -1]), 0);
  assert.equal(bodyFont([]), 0);
});

test('fitting: a fixed scale, the width only, the whole graph, or a readable scale that scrolls', () => {
  const room = { w: 1000, h: 500, width: 800, height: 200, maxScale: 1.8, minScale: 0.7 };
  assert.equal(fitScale(1.5, { ...room, whole: true }), 1.5);
  assert.equal(fitScale('width', { ...room, whole: true }), 0.8);
  assert.equal(fitScale('width', { ...room, width: 4000, whole: false }), 1.8);  // never past maxScale
  assert.equal(fitScale('screen', { ...room, whole: true }), 0.4);  // Classroom: the whole graph, however small
  assert.equal(fitScale('screen', { ...room, whole: false }), 0.7);  // else never under minScale
  assert.equal(fitScale('screen', { ...room, height: 600, whole: false }), 0.8);
  assert.equal(fitScale('screen', { ...room, w: 100, h: 50, whole: true }), 1.8);  // a tiny graph is not blown up
});

test("boxes map through the graph group's transform and meet or miss a view", () => {
  const m = { a: 2, d: 2, e: 10, f: 100 };
  assert.deepEqual(boxOf({ x: 1, y: -20, width: 4, height: 5 }, m), { left: 12, right: 20, top: 60, bottom: 70 });
  assert.deepEqual(boxOf({ x: 0, y: 0, width: 3, height: 3 }, { a: -1, d: 1, e: 0, f: 0 }),
                   { left: -3, right: 0, top: 0, bottom: 3 });
  const a = { left: 0, right: 10, top: 0, bottom: 10 };
  assert.deepEqual(union(a, { left: 5, right: 20, top: -5, bottom: 8 }), { left: 0, right: 20, top: -5, bottom: 10 });
  const view = { left: 100, right: 200, top: 100, bottom: 200 };
  assert.equal(overlaps({ left: 150, right: 160, top: 150, bottom: 160 }, view, 0), true);
  assert.equal(overlaps({ left: 0, right: 95, top: 150, bottom: 160 }, view, 0), false);
  assert.equal(overlaps({ left: 0, right: 95, top: 150, bottom: 160 }, view, 8), true);  // within the slack
  assert.equal(overlaps({ left: 150, right: 160, top: 210, bottom: 220 }, view, 8), false);
});

test('the lens shows the node with its edge when both fit at a readable size', () => {
  const node = { left: 100, right: 140, top: 50, bottom: 70 };
  const edge = { left: 140, right: 180, top: 55, bottom: 65 };
  const v = lensView({ node, edge, width: 600, maxH: 200, kMin: 1.5, kMax: 3, hasCard: true });
  // region 100..180 × 50..70, padded by 6: 92 wide, 32 high; k = min(600/92, 200/32, 3) = 3
  assert.equal(v.mode, 'graph');
  assert.equal(v.k, 3);
  assert.deepEqual(v.viewBox, [40, 44, 200, 32]);  // 600 px / k = 200 units wide, centred on the region
  assert.equal(v.width, 600);
  assert.equal(v.height, 96);
  assert.equal(v.scrollLeft, 0);
});

test('the lens drops the edge that does not fit, then shows the card, or the node scrolled to its name', () => {
  const node = { left: 0, right: 100, top: 0, bottom: 40 };
  const far = { left: 100, right: 1000, top: 0, bottom: 40 };
  const alone = lensView({ node, edge: far, width: 300, maxH: 200, kMin: 2, kMax: 3, hasCard: false });
  assert.equal(alone.mode, 'graph');
  assert.equal(alone.k, 300 / 112);  // the node alone: 112 units wide with its padding
  close(alone.viewBox, [-6, -6, 112, 52]);
  const big = { left: 0, right: 400, top: 0, bottom: 300 };
  assert.deepEqual(lensView({ node: big, edge: null, width: 300, maxH: 200, kMin: 2, kMax: 3, hasCard: true }),
                   { mode: 'card' });
  const scrolled = lensView({ node: big, edge: null, width: 300, maxH: 200, kMin: 2, kMax: 3, hasCard: false });
  assert.equal(scrolled.k, 2);  // readable, however big: the lens scrolls
  assert.deepEqual(scrolled.viewBox, [-6, -6, 412, 312]);
  assert.equal(scrolled.width, 824);
  assert.equal(scrolled.height, 624);
  assert.equal(scrolled.scrollLeft, 4);  // the node's left edge (its name) 8 px from the lens's left
});

test('keeping the node in view: with its edge only when both fit, centred where it was not inside', () => {
  const node = { left: 100, right: 140, top: 300, bottom: 340 };
  const edge = { left: 140, right: 400, top: 320, bottom: 1000 };
  assert.deepEqual(inViewBox(node, null, 60, 700, 800), node);
  assert.deepEqual(inViewBox(node, edge, 60, 700, 800), node);  // 700 high: taller than the 640 px below the bar
  assert.deepEqual(inViewBox(node, { ...edge, bottom: 500 }, 60, 700, 800),
                   { left: 100, right: 400, top: 300, bottom: 500 });
  assert.deepEqual(inViewBox(node, { ...edge, bottom: 500 }, 60, 700, 200), node);  // wider than the graph's view
  const view = { left: 0, right: 800, width: 800 };
  assert.deepEqual(scrollToShow(node, view, 60, 700), { dx: null, dy: null });
  assert.deepEqual(scrollToShow({ left: 900, right: 1000, top: 800, bottom: 840 }, view, 60, 700),
                   { dx: 550, dy: 440 });  // 900 - (800 - 100) / 2; 800 - 60 - (640 - 40) / 2
  assert.deepEqual(scrollToShow({ left: -50, right: 850, top: 10, bottom: 30 }, view, 60, 700),
                   { dx: -50, dy: -360 });  // wider than the view: its left edge at the view's
});

test('autoplay steps are due at start + (i + 1) × interval, never in the past', () => {
  assert.equal(tickDelay(1000, 0, 500, 1000), 500);
  assert.equal(tickDelay(1000, 1, 500, 1700), 300);  // a late tick does not delay the next one
  assert.equal(tickDelay(1000, 1, 500, 2100), 0);
});

test('a step request is kept inside the pass at both ends', () => {
  // The presenter's keys ask unclamped (keyStep); the player shows the clamped step.
  assert.equal(clampStep(keyStep('Home', 4, 7), 7), 0);
  assert.equal(clampStep(keyStep('ArrowLeft', 4, 7), 7), 3);
  assert.equal(clampStep(keyStep('ArrowLeft', 0, 7), 7), 0);
  assert.equal(clampStep(keyStep('ArrowRight', 4, 7), 7), 5);
  assert.equal(clampStep(keyStep('ArrowRight', 6, 7), 7), 6);
  assert.equal(clampStep(keyStep('End', 2, 7), 7), 6);
  assert.equal(clampStep(12, 5), 4);
  assert.equal(clampStep(-3, 5), 0);
});

test('autoplay advances one step a tick and stops at the last step', () => {
  assert.deepEqual(playTick(2, 5), { step: 3, playing: true });
  assert.deepEqual(playTick(3, 5), { step: 4, playing: false });
  assert.deepEqual(playTick(4, 5), { step: 4, playing: false });
});

test('Play from the end rewinds to the seed, elsewhere plays on, and a one-step pass never plays', () => {
  assert.deepEqual(playStart(4, 5), { step: 0, playing: true });
  assert.deepEqual(playStart(2, 5), { step: 2, playing: true });
  assert.deepEqual(playStart(0, 1), { step: 0, playing: false });
});

test('the graph is fitted to the host width it really has, never to a guess while it has none', () => {
  // A notebook's output drawn before it is laid out (JupyterLab after a reload, anywidget's first render) has
  // no width: no room yet (the player waits for a size), where it used to be fitted to 800 px and clipped.
  assert.equal(hostRoom(0, 0), null);
  assert.equal(hostRoom(undefined, 0), null);
  assert.equal(hostRoom(479.5, 0), 479.5);
  assert.equal(hostRoom(479, 15), 464);  // the host's own vertical scroll bar is not room for the graph
  // The graph, 622 px wide at scale 1 in a 479 px column: fitted, it is as wide as the column.
  const room = { w: 622, h: 300, height: 430, maxScale: 1.25, minScale: 0.7, whole: false };
  const scale = fitScale('screen', { ...room, width: hostRoom(479, 0) });
  assert.ok(Math.abs(scale - 479 / 622) < 1e-12, String(scale));
  assert.equal(Math.round(622 * scale), 479);
  // Fitted to the 800 px of the old guess it was drawn 1.25 × as wide as the graph, past the column.
  assert.equal(fitScale('screen', { ...room, width: 800 }), 1.25);
});

test('a host fitted once is fitted again only when its width or the player\'s changes by a pixel or more', () => {
  assert.equal(needsRefit(undefined, { width: 479, rootWidth: 481 }), true);
  const fitted = { width: 479, rootWidth: 481 };
  assert.equal(needsRefit(fitted, { width: 479.4, rootWidth: 481.3 }), false);  // rounding: no loop
  assert.equal(needsRefit(fitted, { width: 622, rootWidth: 624 }), true);  // the column grew
  assert.equal(needsRefit(fitted, { width: 479, rootWidth: 700 }), true);  // the player grew (beside again)
  assert.equal(needsRefit(fitted, { width: 300, rootWidth: 481 }), true);
});

test('a player narrower than NARROW_PX puts the explanation below the graph', () => {
  assert.equal(NARROW_PX, 640);
  assert.equal(isNarrow(479), true);
  assert.equal(isNarrow(639.5), true);
  assert.equal(isNarrow(640), false);
  assert.equal(isNarrow(1200), false);
  assert.equal(isNarrow(0), false);  // not laid out: nothing decided yet
});

test('work left for after the paint runs once per batch, the last job of each kind, in the order kinds came', () => {
  const scheduled = [];
  const q = laterQueue((run) => scheduled.push(run));
  const done = [];
  q.add('url', () => done.push('url 1'));
  q.add('report', () => done.push('report 1'));
  q.add('url', () => done.push('url 2'));  // a second step before the paint: only its address is written
  assert.equal(scheduled.length, 1);  // one batch, scheduled once
  assert.equal(q.pending, 2);
  assert.deepEqual(done, []);  // nothing runs in the key press itself
  scheduled[0]();
  assert.deepEqual(done, ['url 2', 'report 1']);
  scheduled[0]();  // the frame's end and the hidden tab's timer both call it: the batch runs once
  assert.deepEqual(done, ['url 2', 'report 1']);
  assert.equal(q.pending, 0);
  q.add('url', () => done.push('url 3'));
  assert.equal(scheduled.length, 2);  // a new batch
  scheduled[0]();  // the old batch's second call does not run the new one before its paint
  assert.deepEqual(done, ['url 2', 'report 1']);
  q.flush();  // a run of the page: what was left happens first
  assert.deepEqual(done, ['url 2', 'report 1', 'url 3']);
  scheduled[1]();
  assert.deepEqual(done, ['url 2', 'report 1', 'url 3']);
  q.flush();  // nothing left: nothing runs
  assert.equal(done.length, 3);
});

test('the boxes measured at a fit hold while the scale, the zoom and the fonts stay the same', () => {
  const at = { scale: 0.42, zoom: 1, fonts: 3 };
  assert.equal(fitKeepsBoxes(undefined, at), false);  // the first fit measures
  assert.equal(fitKeepsBoxes(at, { scale: 0.42, zoom: 1, fonts: 3 }), true);  // a refit that changed nothing
  assert.equal(fitKeepsBoxes(at, { scale: 0.43, zoom: 1, fonts: 3 }), false);  // text drawn at another size
  assert.equal(fitKeepsBoxes(at, { scale: 0.42, zoom: 2, fonts: 3 }), false);  // the browser zoomed
  assert.equal(fitKeepsBoxes(at, { scale: 0.42, zoom: 1, fonts: 4 }), false);  // a font arrived late
});

test('a vertical scroll bar is told from rounding by the width it takes', () => {
  assert.equal(scrollbarShown(402, 400, 1, 1), false);  // 400 px inside 1 px borders: none
  assert.equal(scrollbarShown(401, 398, 1, 1), false);  // a fraction rounded two ways
  assert.equal(scrollbarShown(402, 385, 1, 1), true);  // a 15 px scroll bar
  assert.equal(scrollbarShown(400, 392, 0, 0), true);  // an 8 px one, no borders
  assert.equal(scrollbarShown(400, 400, NaN, undefined), false);  // borders unread count as none
});

test('children that keep their kind at both ends are paired, the ones between are made anew', () => {
  const same = (a, b) => a[0] === b[0];  // the kind is the first letter
  assert.deepEqual(matchEnds(['p1', 'f1', 'p2'], ['p3', 'f2', 'p4'], same), { head: 3, tail: 0 });
  // a figure more in the middle: the paragraphs around it are kept
  assert.deepEqual(matchEnds(['p1', 'p2'], ['p3', 'f1', 'p4'], same), { head: 1, tail: 1 });
  assert.deepEqual(matchEnds(['p1', 'f1', 't1', 'p2'], ['p3', 't2', 'p4'], same), { head: 1, tail: 2 });
  // the ends never overlap: a list that grows keeps its start and adds at its end
  assert.deepEqual(matchEnds(['p1'], ['p2', 'p3'], same), { head: 1, tail: 0 });
  assert.deepEqual(matchEnds(['p1', 'p2'], ['p3'], same), { head: 1, tail: 0 });
  assert.deepEqual(matchEnds([], ['p1'], same), { head: 0, tail: 0 });
  assert.deepEqual(matchEnds(['f1'], ['t1'], same), { head: 0, tail: 0 });  // nothing in common: all anew
});
