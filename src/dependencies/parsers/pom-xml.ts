/**
 * pom.xml (Java, Maven): the project's `<dependencies>`. A pom is a manifest, not a lock, so only
 * what it pins literally is listed: a version written out (`2.15.2`), or a `${property}` that
 * resolves to one through `<properties>` (properties may refer to properties) or the project's own
 * coordinates (`${project.version}`, `${project.parent.version}`, …). A dependency without a version
 * takes the one `<dependencyManagement>` gives it, as Maven does. Version ranges (`[1.0,2.0)`), BOM
 * imports, parent poms, profiles and anything left unresolved are skipped: this server has no Maven
 * repository to read them from. Names are `groupId/artifactId`, as GitLab writes Maven names (the
 * package URL's namespace and name joined by `/`). Read with fast-xml-parser, every value kept as
 * text (`1.10` must not become the number 1.1).
 */
import { XMLParser } from 'fast-xml-parser';
import { basenameIn, collect, isRecord } from './collect';
import type { LockfileFormat } from './types';

const xml = new XMLParser({ parseTagValue: false, ignoreAttributes: true, isArray: (name) => name === 'dependency' });

function text(value: unknown): string | undefined {
  return typeof value === 'string' ? value.trim() : undefined;
}

function dependencyList(section: unknown): Record<string, unknown>[] {
  if (!isRecord(section) || !isRecord(section.dependencies)) return [];
  const list = section.dependencies.dependency;
  return Array.isArray(list) ? list.filter(isRecord) : [];
}

export const pomXml: LockfileFormat = {
  packageManager: 'maven',
  matches: basenameIn('pom.xml'),
  parse: (input) =>
    collect((out) => {
      const doc: unknown = xml.parse(input);
      const project = isRecord(doc) ? doc.project : undefined;
      if (!isRecord(project)) return;

      const props = new Map<string, string>();
      if (isRecord(project.properties))
        for (const [k, v] of Object.entries(project.properties)) if (text(v) !== undefined) props.set(k, text(v)!);
      const parent = isRecord(project.parent) ? project.parent : {};
      const own = (key: string) => text(project[key]) ?? text(parent[key]);
      for (const key of ['groupId', 'artifactId', 'version']) {
        const value = own(key);
        if (value !== undefined) props.set(`project.${key}`, value).set(`pom.${key}`, value);
        if (text(parent[key]) !== undefined) props.set(`project.parent.${key}`, text(parent[key])!);
      }

      /**
       * Substitutes `${…}` references; undefined when one stays unresolved, loops, or grows past
       * any real version (properties that each repeat the next would otherwise blow up a push).
       */
      const resolve = (value: string | undefined, depth = 0): string | undefined => {
        if (value === undefined || depth > 10 || value.length > 1000) return undefined;
        if (!value.includes('${')) return value;
        let unresolved = false;
        const next = value.replace(/\$\{([^}]*)\}/g, (_, key: string) => {
          const v = props.get(key.trim());
          if (v === undefined) unresolved = true;
          return v ?? '';
        });
        return unresolved ? undefined : resolve(next, depth + 1);
      };

      const managed = new Map<string, string | undefined>();
      for (const dep of dependencyList(project.dependencyManagement)) {
        const key = `${resolve(text(dep.groupId))}:${resolve(text(dep.artifactId))}`;
        if (!managed.has(key)) managed.set(key, text(dep.version));
      }

      for (const dep of dependencyList(project)) {
        const group = resolve(text(dep.groupId));
        const artifact = resolve(text(dep.artifactId));
        if (!group || !artifact) continue;
        const version = resolve(text(dep.version) ?? managed.get(`${group}:${artifact}`));
        if (!version || /^[[(]/.test(version)) continue;
        out.add(`${group}/${artifact}`, version);
      }
    }),
};
