/**
 * Lockfiles of the other ecosystems reach the dependency list through the same push (the parsers of
 * parsers/more-formats.ts are in the scanner's registry), and OSV advisories match them under their
 * ecosystem's naming: Maven packages are `group/artifact` here but `group:artifact` in OSV, and PyPI
 * names match in any spelling of their PEP 503 normal form (`PyYAML` vs `pyyaml`).
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { advisoryStatements } from '../../src/dependencies/advisories';
import { storageSql } from '#harness';
import { api, createUser, type TestUser, unique } from '../support';
import log4shell from './fixtures/GHSA-jfh8-c2jp-5v3q.json';
import pyyamlAdvisory from './fixtures/GHSA-8q59-q68h-6hv4.json';

const POM = `<?xml version="1.0" encoding="UTF-8"?>
<project xmlns="http://maven.apache.org/POM/4.0.0">
  <modelVersion>4.0.0</modelVersion>
  <groupId>com.example</groupId>
  <artifactId>app</artifactId>
  <version>1.0.0</version>
  <properties><log4j.version>2.14.1</log4j.version></properties>
  <dependencies>
    <dependency><groupId>org.apache.logging.log4j</groupId><artifactId>log4j-core</artifactId><version>\${log4j.version}</version></dependency>
    <dependency><groupId>org.apache.logging.log4j</groupId><artifactId>log4j-api</artifactId><version>2.14.1</version></dependency>
  </dependencies>
</project>
`;
const GRADLE = `# This is a Gradle generated file for dependency locking.
org.apache.logging.log4j:log4j-core:2.17.1=compileClasspath,runtimeClasspath
empty=
`;
const REQUIREMENTS = `# pinned by pip-compile
pyyaml==5.3.1
requests==2.31.0 ; python_version >= "3.8"
flask>=2.0
`;
const GEMFILE_LOCK = `GEM
  remote: https://rubygems.org/
  specs:
    rack (3.0.8)

PLATFORMS
  ruby

DEPENDENCIES
  rack

BUNDLED WITH
   2.4.10
`;

let owner: TestUser;
let pid: number;

beforeAll(async () => {
  owner = await createUser();
  pid = (await api('/projects', { token: owner.token, body: { name: unique('eco'), visibility: 'private' } })).body.id;
  for (const statement of advisoryStatements([log4shell, pyyamlAdvisory])) await storageSql(statement);
  const res = await api(`/projects/${pid}/repository/commits`, {
    token: owner.token,
    body: {
      branch: 'main',
      commit_message: 'lockfiles of four ecosystems',
      actions: [
        { action: 'create', file_path: 'pom.xml', content: POM },
        { action: 'create', file_path: 'android/gradle.lockfile', content: GRADLE },
        { action: 'create', file_path: 'requirements.txt', content: REQUIREMENTS },
        { action: 'create', file_path: 'Gemfile.lock', content: GEMFILE_LOCK },
      ],
    },
  });
  expect(res.status).toBe(201);
});

describe('dependencies of the other ecosystems', () => {
  it('lists what each lockfile pins, under GitLab package managers and names', async () => {
    const res = await api(`/projects/${pid}/dependencies?per_page=100`, { token: owner.token });
    expect(res.status).toBe(200);
    const rows = res.body.map((d: any) => `${d.dependency_file_path} ${d.package_manager} ${d.name}@${d.version}`).sort();
    expect(rows).toEqual([
      'Gemfile.lock bundler rack@3.0.8',
      'android/gradle.lockfile gradle org.apache.logging.log4j/log4j-core@2.17.1',
      'pom.xml maven org.apache.logging.log4j/log4j-api@2.14.1',
      'pom.xml maven org.apache.logging.log4j/log4j-core@2.14.1',
      'requirements.txt pip pyyaml@5.3.1',
      'requirements.txt pip requests@2.31.0',
    ]);
  });

  it('flags a Maven and a PyPI package inside an advisory range, and not the same package outside it', async () => {
    const res = await api(`/projects/${pid}/dependencies?per_page=100`, { token: owner.token });
    const flagged = Object.fromEntries(res.body.map((d: any) => [`${d.dependency_file_path} ${d.name}@${d.version}`, d.vulnerabilities.map((v: any) => v.name)]));
    expect(flagged).toEqual({
      'Gemfile.lock rack@3.0.8': [],
      'android/gradle.lockfile org.apache.logging.log4j/log4j-core@2.17.1': [],
      'pom.xml org.apache.logging.log4j/log4j-api@2.14.1': [],
      'pom.xml org.apache.logging.log4j/log4j-core@2.14.1': ['Remote code injection in Log4j'],
      'requirements.txt pyyaml@5.3.1': ['Improper Input Validation in PyYAML'],
      'requirements.txt requests@2.31.0': [],
    });
  });

  it('filters by the new package managers', async () => {
    const res = await api(`/projects/${pid}/dependencies?package_manager=maven,gradle`, { token: owner.token });
    expect(res.status).toBe(200);
    expect(res.body.map((d: any) => d.package_manager).sort()).toEqual(['gradle', 'maven', 'maven']);
  });
});
