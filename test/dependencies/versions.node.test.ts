/** Version order and OSV range evaluation (src/dependencies/versions.ts), on real advisories and edge cases. */
import { describe, expect, it } from 'vitest';
import { severityOf, vulnerabilitiesOf } from '../../src/dependencies/advisories';
import { cvss3BaseScore } from '../../src/dependencies/cvss';
import { compareDotted, compareSemver, isAffected } from '../../src/dependencies/versions';
import lodash from './fixtures/GHSA-35jh-r3h4-6jhm.json';
import minimist from './fixtures/GHSA-xvch-5gv4-984h.json';

describe('version order', () => {
  it('SemVer 2.0: numeric parts, prereleases below their release, build metadata ignored', () => {
    const ordered = ['1.0.0-alpha', '1.0.0-alpha.1', '1.0.0-alpha.beta', '1.0.0-beta', '1.0.0-beta.2', '1.0.0-beta.11', '1.0.0-rc.1', '1.0.0', '1.0.1', '1.2.0', '1.10.0', '2.0.0'];
    for (let i = 1; i < ordered.length; i++) expect(compareSemver(ordered[i - 1], ordered[i]), `${ordered[i - 1]} < ${ordered[i]}`).toBe(-1);
    expect(compareSemver('1.0.0+build.5', '1.0.0')).toBe(0);
    expect(compareSemver('1.0', '1.0.0')).toBeNull();
  });

  it('dotted versions: numbers numerically, letter parts as prereleases, trailing zeros equal', () => {
    expect(compareDotted('1.10', '1.9')).toBe(1);
    expect(compareDotted('1.0.rc1', '1.0')).toBe(-1);
    expect(compareDotted('2.0.0rc1', '2.0.0')).toBe(-1);
    expect(compareDotted('1.0', '1.0.0')).toBe(0);
    expect(compareDotted('v1.2.3', '1.2.3')).toBe(0);
    expect(compareDotted('4.2.0.beta1', '4.2.0.beta2')).toBe(-1);
  });
});

describe('OSV ranges', () => {
  it('introduced/fixed: the real lodash and minimist advisories', () => {
    const [lodashAffected] = lodash.affected;
    expect(isAffected('npm', lodashAffected, '4.17.20')).toBe(true);
    expect(isAffected('npm', lodashAffected, '0.1.0')).toBe(true);
    expect(isAffected('npm', lodashAffected, '4.17.21')).toBe(false);
    expect(isAffected('npm', lodashAffected, '5.0.0')).toBe(false);
    // minimist: two ranges, [0, 0.2.4) and [1.0.0, 1.2.6).
    const dep = (version: string) => ({ ecosystem: 'npm', packageKey: 'minimist', version });
    const rows = [{ id: 7, osvId: minimist.id, record: JSON.stringify(minimist) }];
    expect(vulnerabilitiesOf(dep('0.0.8'), rows)).toEqual([{ id: 7, name: 'Prototype Pollution in minimist', severity: 'critical', url: 'https://nvd.nist.gov/vuln/detail/CVE-2021-44906' }]);
    expect(vulnerabilitiesOf(dep('1.2.5'), rows)).toHaveLength(1);
    expect(vulnerabilitiesOf(dep('0.2.4'), rows)).toEqual([]);
    expect(vulnerabilitiesOf(dep('1.2.6'), rows)).toEqual([]);
    expect(vulnerabilitiesOf(dep('0.2.5'), rows)).toEqual([]);
  });

  it('last_affected, limit, an explicit versions list and GIT ranges', () => {
    const range = (events: Record<string, string>[], type = 'SEMVER') => ({ ranges: [{ type, events }] });
    expect(isAffected('Go', range([{ introduced: '1.2.0' }, { last_affected: '1.4.0' }]), '1.4.0')).toBe(true);
    expect(isAffected('Go', range([{ introduced: '1.2.0' }, { last_affected: '1.4.0' }]), '1.4.1')).toBe(false);
    expect(isAffected('Go', range([{ introduced: '1.2.0' }, { last_affected: '1.4.0' }]), '1.1.9')).toBe(false);
    expect(isAffected('PyPI', range([{ introduced: '0' }, { limit: '2.0' }], 'ECOSYSTEM'), '2.1')).toBe(false);
    expect(isAffected('PyPI', range([{ introduced: '0' }, { limit: '2.0' }], 'ECOSYSTEM'), '1.9')).toBe(true);
    expect(isAffected('PyPI', range([{ introduced: '0' }, { fixed: '2.0' }], 'ECOSYSTEM'), '2.0rc1')).toBe(true);
    expect(isAffected('PyPI', { versions: ['1.0.3'] }, '1.0.3')).toBe(true);
    expect(isAffected('PyPI', { versions: ['1.0.3'] }, '1.0.4')).toBe(false);
    expect(isAffected('npm', range([{ introduced: '0' }], 'GIT'), '1.0.0')).toBe(false);
  });
});

describe('severity', () => {
  it('CVSS v3 base scores of well-known vectors', () => {
    expect(cvss3BaseScore('CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:U/C:H/I:H/A:H')).toBe(9.8);
    expect(cvss3BaseScore('CVSS:3.1/AV:N/AC:L/PR:H/UI:N/S:U/C:H/I:H/A:H')).toBe(7.2);
    expect(cvss3BaseScore('CVSS:3.1/AV:N/AC:L/PR:N/UI:R/S:C/C:L/I:L/A:N')).toBe(6.1);
    expect(cvss3BaseScore('CVSS:3.0/AV:N/AC:H/PR:N/UI:N/S:U/C:N/I:N/A:H')).toBe(5.9);
    expect(cvss3BaseScore('CVSS:3.1/AV:L/AC:L/PR:L/UI:N/S:U/C:N/I:N/A:N')).toBe(0);
    expect(cvss3BaseScore('AV:N/AC:L/Au:N/C:P/I:P/A:P')).toBeNull();
    expect(cvss3BaseScore('CVSS:3.1/AV:X/AC:L/PR:N/UI:N/S:U/C:H/I:H/A:H')).toBeNull();
  });

  it("the database's level first (MODERATE is medium), else the CVSS band, else unknown", () => {
    expect(severityOf(lodash, lodash.affected)).toBe('high');
    expect(severityOf({ ...minimist, database_specific: { severity: 'MODERATE' } }, [])).toBe('medium');
    // Without a named level: lodash's vector scores 7.2, minimist's 9.8.
    expect(severityOf({ ...lodash, database_specific: {} }, [])).toBe('high');
    expect(severityOf({ ...minimist, database_specific: {} }, [])).toBe('critical');
    expect(severityOf({ id: 'PYSEC-0000-0' }, [])).toBe('unknown');
  });
});
