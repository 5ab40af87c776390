// The graph as text (lucid/viz/player/logic.mjs): node names at a step, the gradient history, the walk keys.
// Run by tests/viz/test_player_logic.py under `node --test`.
import { test } from 'node:test';
import assert from 'node:assert/strict';

import { fitScale, gradHistory, gradOf, nodeName, spokenText, walkKey, zoomOf } from '../../lucid/viz/player/logic.mjs';

const T6 = { id: 't6', name: 't6', kind: 'intermediate', op: 'tanh', value: '0.7616', inputs: ['t5'], users: ['t7'],
             grad: true };
const NAMES = { t5: 't5', t6: 't6', t7: 't7', t0: 'x' };

test("a node's name says its op, value, gradient and status, inputs and users", () => {
  assert.equal(nodeName({}, T6, [4, '0.4200', true], NAMES),
               't6, tanh of t5, value 0.7616, gradient 0.4200, final; inputs t5; used by t7');
  assert.equal(nodeName({}, T6, [2, '0.1000', false], NAMES),
               't6, tanh of t5, value 0.7616, gradient 0.1000, partial; inputs t5; used by t7');
  assert.equal(nodeName({}, T6, null, NAMES), 't6, tanh of t5, value 0.7616, gradient pending; inputs t5; used by t7');
});

test('leaves, constants and the output are said as such, inputs by their drawn names', () => {
  const x = { id: 't0', name: 'x', kind: 'leaf', op: '', value: '−2.000', inputs: [], users: ['t6'], grad: true };
  assert.equal(nodeName({}, x, null, NAMES), 'x, input, value −2.000, gradient pending; used by t6');
  const c = { id: 't4', name: 't4', kind: 'const', op: '', value: '2.000', inputs: [], users: ['t6'], grad: false };
  assert.equal(nodeName({}, c, null, NAMES), 't4, constant, value 2.000, no gradient; used by t6');
  const f = { id: 't7', name: 'f', kind: 'output', op: 'mul', value: '−12.00', inputs: ['t0', 't0'], users: [],
              grad: true };
  assert.equal(nodeName({}, f, [0, '1.000', true], NAMES),
               'f, mul of x, x, value −12.00, gradient 1.000, final; inputs x, x; the output');
});

test("a node's name is said in the page's words", () => {
  const words = { node_op: '{inputs}의 {op}', node_value: '값 {value}', node_grad: '기울기 {grad}, {status}',
                  grad_final: '확정', node_inputs: '입력 {names}', node_users: '{names}에서 사용' };
  assert.equal(nodeName(words, T6, [4, '0.4200', true], NAMES),
               't6, t5의 tanh, 값 0.7616, 기울기 0.4200, 확정; 입력 t5; t7에서 사용');
});

test("the gradient a node shows follows the trace step: pending, then each accumulated value", () => {
  // trace steps: 0 seeds t7, 1 and 3 reach t6 (partial, then final), 2 reaches t5
  const h = gradHistory([[0, 't7', '1.000', true], [1, 't6', '0.1000', false], [2, 't5', '0.3000', true],
                         [3, 't6', '0.4200', true]]);
  assert.equal(gradOf(h, 't6', 0), null);
  assert.deepEqual(gradOf(h, 't6', 1), [1, '0.1000', false]);
  assert.deepEqual(gradOf(h, 't6', 2), [1, '0.1000', false]);
  assert.deepEqual(gradOf(h, 't6', 3), [3, '0.4200', true]);
  assert.deepEqual(gradOf(h, 't6', 99), [3, '0.4200', true]);
  assert.deepEqual(gradOf(h, 't7', 0), [0, '1.000', true]);
  assert.equal(gradOf(h, 't9', 4), null);
  assert.equal(h.size, 3);
});

test('a box is named by its drawn text lines with their padding folded', () => {
  assert.equal(spokenText(['  layer\u00a01 ', '', '12 nodes\u00a0\u00a0· grad  pending']),
               'layer 1, 12 nodes · grad pending');
});

test('↓ and ↑ walk the nodes and stop at either end; other keys are not the walk\'s', () => {
  assert.equal(walkKey('ArrowDown', 0, 5), 1);
  assert.equal(walkKey('ArrowDown', 4, 5), 4);
  assert.equal(walkKey('ArrowUp', 3, 5), 2);
  assert.equal(walkKey('ArrowUp', 0, 5), 0);
  assert.equal(walkKey('ArrowRight', 2, 5), null);  // → steps the pass, even on a node
  assert.equal(walkKey('ArrowDown', 0, 0), null);
});

test('browser zoom is read from the window in screen over CSS pixels, capped by the device pixel ratio', () => {
  assert.equal(zoomOf(1600, 800, 2), 2);        // 200 % on a 1x screen
  assert.equal(zoomOf(1440, 1440, 2), 1);       // a 2x screen at 100 %
  assert.equal(zoomOf(1600, 1000, 1), 1);       // a docked panel narrows the page: no zoom
  assert.equal(zoomOf(1616, 1600, 1.25), 1);    // window borders, 125 % display scaling
  assert.equal(zoomOf(2400, 800, 3), 3);
  assert.equal(zoomOf(0, 800, 2), 1);
});

test('at 200 % zoom the fit uses the 100 % room, so the graph is drawn as many CSS pixels as before', () => {
  const at = (width, height, z) => fitScale('screen', { w: 2000, h: 900, width: width * z, height: height * z,
                                                         maxScale: 1.8, minScale: 0, whole: true });
  assert.equal(at(1400, 700, 1), 0.7);
  assert.equal(at(700, 350, zoomOf(1400, 700, 2)), 0.7);  // text twice as big on screen; the column scrolls
});
