/**
 * Flipper's model of a feature (flipper 0.2x as GitLab uses it: lib/flipper/feature.rb, gates/*.rb,
 * adapters/active_record.rb), as pure functions over the gate rows of one feature.
 */

/** The gates in Flipper's order (`Flipper::Feature#gates`): the order GET /features lists them in. */
export const GATE_KEYS = ['boolean', 'actors', 'percentage_of_actors', 'percentage_of_time', 'groups'] as const;
export type GateKey = (typeof GATE_KEYS)[number];

export interface GateValues {
  boolean: boolean;
  actors: string[];
  percentage_of_actors: number;
  percentage_of_time: number;
  groups: string[];
}

/** Something a flag can be enabled for: its Flipper id (`FeatureGate#flipper_id`, "User:5"). */
export interface Actor {
  flipperId: string;
}

export const userActor = (id: number): Actor => ({ flipperId: `User:${id}` });
export const projectActor = (id: number): Actor => ({ flipperId: `Project:${id}` });
export const groupActor = (id: number): Actor => ({ flipperId: `Group:${id}` });
/** A personal namespace's flipper id carries its STI class name (Namespaces::UserNamespace). */
export const userNamespaceActor = (id: number): Actor => ({ flipperId: `Namespaces::UserNamespace:${id}` });

/** Flipper's Typecast.to_percentage: 30.0 reads back as 30, 12.5 stays 12.5. */
export function toPercentage(v: string | number): number {
  const f = Number(v);
  if (!Number.isFinite(f)) return 0;
  return Math.trunc(f) === f ? Math.trunc(f) : f;
}

/** The values of a feature's gates from its rows (a feature without rows has every gate off). */
export function gateValues(rows: readonly { key: string; value: string }[]): GateValues {
  const v: GateValues = { boolean: false, actors: [], percentage_of_actors: 0, percentage_of_time: 0, groups: [] };
  for (const r of rows) {
    if (r.key === 'boolean') v.boolean = r.value === 'true';
    else if (r.key === 'actors') v.actors.push(r.value);
    else if (r.key === 'groups') v.groups.push(r.value);
    else if (r.key === 'percentage_of_actors' || r.key === 'percentage_of_time') v[r.key] = toPercentage(r.value);
  }
  return v;
}

/** `Flipper::Feature#state`: fully on, on for some, or off. A 100% of actors is still conditional. */
export function stateOf(v: GateValues): 'on' | 'off' | 'conditional' {
  if (v.boolean || v.percentage_of_time === 100) return 'on';
  if (v.actors.length || v.groups.length || v.percentage_of_actors > 0 || v.percentage_of_time > 0) return 'conditional';
  return 'off';
}

/** lib/api/entities/feature.rb: every gate in order, minus zero percentages and empty sets. */
export function presentGates(v: GateValues): { key: GateKey; value: boolean | number | string[] }[] {
  return GATE_KEYS.flatMap((key) => {
    const value = v[key];
    if ((typeof value === 'number' && value === 0) || (Array.isArray(value) && value.length === 0)) return [];
    return [{ key, value }];
  });
}

const CRC_TABLE = (() => {
  const t = new Uint32Array(256);
  for (let n = 0; n < 256; n++) {
    let c = n;
    for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
    t[n] = c >>> 0;
  }
  return t;
})();

/** Zlib.crc32 (CRC-32, IEEE polynomial) of the UTF-8 bytes of `s`. */
export function crc32(s: string): number {
  let c = 0xffffffff;
  for (const b of new TextEncoder().encode(s)) c = CRC_TABLE[(c ^ b) & 0xff] ^ (c >>> 8);
  return (c ^ 0xffffffff) >>> 0;
}

/**
 * Flipper::Gates::PercentageOfActors#open?: the same actor always lands on the same side, and
 * raising the percentage only ever adds actors (the hash includes the feature name so two flags at
 * 50% do not pick the same half).
 */
export const actorInPercentage = (feature: string, actor: Actor, percentage: number): boolean =>
  crc32(`${feature}${actor.flipperId}`) % (100 * 1000) < percentage * 1000;

/**
 * `Flipper::Feature#enabled?(thing)` plus GitLab's opt-out (lib/feature.rb current_feature_value):
 * any open gate enables, and an actor's `:opt_out` entry overrides an enable for that actor.
 * Feature groups: this server registers none (CE registers none either), so a groups gate never opens.
 */
export function gatesOpen(feature: string, v: GateValues, actor: Actor | undefined, random: () => number = Math.random): boolean {
  let open =
    v.boolean ||
    (actor !== undefined && v.actors.includes(actor.flipperId)) ||
    (actor !== undefined && v.percentage_of_actors > 0 && actorInPercentage(feature, actor, v.percentage_of_actors)) ||
    (v.percentage_of_time > 0 && random() < v.percentage_of_time / 100);
  if (open && actor && v.actors.includes(`${actor.flipperId}:opt_out`)) open = false;
  return open;
}
