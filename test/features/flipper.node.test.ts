/**
 * Flipper's arithmetic (features/flipper.ts): the same actor always gets the same answer from a
 * percentage-of-actors gate, as Flipper computes it (Zlib.crc32 of feature name + flipper id,
 * modulo 100,000, below percentage * 1,000); reference values computed with Python's zlib.crc32.
 */
import { describe, expect, it } from 'vitest';
import { actorInPercentage, crc32, gatesOpen, gateValues, presentGates, stateOf, userActor } from '../../src/features/flipper';

describe('crc32', () => {
  it('is zlib.crc32', () => {
    expect(crc32('hello')).toBe(907060870);
    expect(crc32('my_flagUser:1')).toBe(3980123387);
  });
});

describe('percentage of actors', () => {
  it('picks the actors zlib picks, every time', () => {
    const picked = Array.from({ length: 199 }, (_, i) => i + 1).filter((id) => actorInPercentage('my_flag', userActor(id), 25));
    expect(picked.slice(0, 10)).toEqual([1, 5, 6, 7, 21, 27, 31, 34, 40, 44]);
    const again = Array.from({ length: 199 }, (_, i) => i + 1).filter((id) => actorInPercentage('my_flag', userActor(id), 25));
    expect(again).toEqual(picked);
  });

  it('about the percentage of actors, and raising it only adds actors', () => {
    const ids = Array.from({ length: 1000 }, (_, i) => i + 1);
    const at = (p: number) => new Set(ids.filter((id) => actorInPercentage('my_flag', userActor(id), p)));
    expect(at(25).size).toBe(252); // Python: sum(zlib.crc32(b"my_flagUser:%d" % i) % 100000 < 25000 for i in 1..1000)
    const more = at(60);
    for (const id of at(25)) expect(more.has(id)).toBe(true);
  });

  it('a gate of actors opens for no actor without one (a global check)', () => {
    const v = gateValues([{ key: 'percentage_of_actors', value: '100' }]);
    expect(gatesOpen('my_flag', v, undefined)).toBe(false);
    expect(gatesOpen('my_flag', v, userActor(3))).toBe(true);
  });
});

describe('gates and state', () => {
  it('percentage of time uses the random draw; an opt-out beats an enabled actor', () => {
    const v = gateValues([{ key: 'percentage_of_time', value: '30' }]);
    expect(gatesOpen('f', v, undefined, () => 0.29)).toBe(true);
    expect(gatesOpen('f', v, undefined, () => 0.3)).toBe(false);
    const opted = gateValues([
      { key: 'boolean', value: 'true' },
      { key: 'actors', value: 'User:7:opt_out' },
    ]);
    expect(gatesOpen('f', opted, userActor(7))).toBe(false);
    expect(gatesOpen('f', opted, userActor(8))).toBe(true);
  });

  it('100% of time is on, 100% of actors conditional, nothing off', () => {
    expect(stateOf(gateValues([{ key: 'percentage_of_time', value: '100' }]))).toBe('on');
    expect(stateOf(gateValues([{ key: 'percentage_of_actors', value: '100' }]))).toBe('conditional');
    expect(stateOf(gateValues([]))).toBe('off');
    expect(presentGates(gateValues([{ key: 'percentage_of_time', value: '0' }]))).toEqual([{ key: 'boolean', value: false }]);
  });
});
