// Loaded with `node -r` before portman: Math.random becomes a seeded
// generator (mulberry32), so the example values openapi-to-postman's faker
// puts in the generated requests, and so the fuzzing variations built on
// them, are the same on every run.  The seed is PORTMAN_SEED (default 1).
'use strict';
let a = (Number(process.env.PORTMAN_SEED) || 1) >>> 0;
Math.random = function () {
  a = (a + 0x6d2b79f5) >>> 0;
  let t = a;
  t = Math.imul(t ^ (t >>> 15), t | 1);
  t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
  return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
};
