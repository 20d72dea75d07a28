/**
 * The lockfile parsers of MORE_FORMATS (src/dependencies/parsers/more-formats.ts) as pure functions:
 * a realistic file per format, written as the tool that owns it writes it, with the edge cases
 * each format has (comments, markers, development sections, duplicates, malformed input), and a
 * property that no parser throws or returns anything but an array on arbitrary text.
 */
import { fc, it as prop } from '@fast-check/vitest';
import { describe, expect, it } from 'vitest';
import { composerLock } from '../../src/dependencies/parsers/composer';
import { conanLock } from '../../src/dependencies/parsers/conan-lock';
import { gemfileLock } from '../../src/dependencies/parsers/gemfile-lock';
import { goMod } from '../../src/dependencies/parsers/go-mod';
import { goSum } from '../../src/dependencies/parsers/go-sum';
import { gradleLockfile } from '../../src/dependencies/parsers/gradle-lockfile';
import { MORE_FORMATS } from '../../src/dependencies/parsers/more-formats';
import { nugetLock } from '../../src/dependencies/parsers/nuget-lock';
import { pipfileLock } from '../../src/dependencies/parsers/pipfile-lock';
import { poetryLock } from '../../src/dependencies/parsers/poetry-lock';
import { pomXml } from '../../src/dependencies/parsers/pom-xml';
import { requirementsTxt } from '../../src/dependencies/parsers/requirements-txt';
import { sbtLock } from '../../src/dependencies/parsers/sbt-lock';
import type { LockfileFormat } from '../../src/dependencies/parsers/types';

const pairs = (...list: [string, string][]) => list.map(([name, version]) => ({ name, version }));

describe('composer.lock', () => {
  const text = JSON.stringify(
    {
      _readme: ['This file locks the dependencies of your project to a known state', 'This file is @generated automatically'],
      'content-hash': '2d1b4a6c9d3c3e4f5a6b7c8d9e0f1a2b',
      packages: [
        {
          name: 'guzzlehttp/guzzle',
          version: '7.8.0',
          source: { type: 'git', url: 'https://github.com/guzzle/guzzle.git', reference: '1110f66a6530a40fe7aea0378fe608ee2b2248f9' },
          require: { php: '^7.2.5 || ^8.0', 'guzzlehttp/promises': '^1.5.3 || ^2.0.1' },
          type: 'library',
        },
        { name: 'monolog/monolog', version: '3.4.0', type: 'library' },
        { name: 'symfony/console', version: 'v6.3.4', type: 'library' },
        { name: 'acme/internal-tools', version: 'dev-main', type: 'library' },
        { name: 'broken/entry' },
      ],
      'packages-dev': [
        { name: 'phpunit/phpunit', version: '10.3.5', type: 'library' },
        { name: 'monolog/monolog', version: '3.4.0', type: 'library' },
      ],
      aliases: [],
      'minimum-stability': 'stable',
      'stability-flags': [],
      'prefer-stable': false,
      platform: { php: '>=8.1' },
      'platform-dev': [],
      'plugin-api-version': '2.6.0',
    },
    null,
    4,
  );

  it('lists packages then packages-dev, as Composer writes their versions, each pair once', () => {
    expect(composerLock.parse(text)).toEqual(
      pairs(
        ['guzzlehttp/guzzle', '7.8.0'],
        ['monolog/monolog', '3.4.0'],
        ['symfony/console', 'v6.3.4'],
        ['acme/internal-tools', 'dev-main'],
        ['phpunit/phpunit', '10.3.5'],
      ),
    );
  });

  it('answers nothing for a truncated file', () => {
    expect(composerLock.parse(text.slice(0, 200))).toEqual([]);
    expect(composerLock.parse('{"packages": {"not": "an array"}}')).toEqual([]);
  });
});

describe('Gemfile.lock', () => {
  const text = `GIT
  remote: https://github.com/rails/rails.git
  revision: 5b4d7a7f1c3e9b0a8f6d2c1e4b3a2f1d0c9b8a7e
  branch: main
  specs:
    actionpack (7.2.0.alpha)
      actionview (= 7.2.0.alpha)
      rack (>= 2.2.4)
    actionview (7.2.0.alpha)
      erubi (~> 1.11)

PATH
  remote: engines/billing
  specs:
    billing (0.1.0)
      actionpack

GEM
  remote: https://rubygems.org/
  specs:
    erubi (1.12.0)
    mini_portile2 (2.8.5)
    nokogiri (1.15.4)
      mini_portile2 (~> 2.8.2)
      racc (~> 1.4)
    nokogiri (1.15.4-arm64-darwin)
      racc (~> 1.4)
    nokogiri (1.15.4-x86_64-linux)
      racc (~> 1.4)
    racc (1.7.1)
    rack (3.0.8)
    rspec-core (3.12.2)
      rspec-support (~> 3.12.0)
    rspec-support (3.12.1)

PLATFORMS
  arm64-darwin-22
  ruby
  x86_64-linux

DEPENDENCIES
  actionpack!
  billing!
  nokogiri (~> 1.15)
  rspec-core

CHECKSUMS
  erubi (1.12.0) sha256=27bedb74dfb1e04ff60674975e182d8ca787f2224f2e8143268c7696f42e4723

RUBY VERSION
   ruby 3.2.2p53

BUNDLED WITH
   2.4.19
`;

  it('lists the specs of GIT, PATH and GEM, one entry per version whatever the platform', () => {
    expect(gemfileLock.parse(text)).toEqual(
      pairs(
        ['actionpack', '7.2.0.alpha'],
        ['actionview', '7.2.0.alpha'],
        ['billing', '0.1.0'],
        ['erubi', '1.12.0'],
        ['mini_portile2', '2.8.5'],
        ['nokogiri', '1.15.4'],
        ['racc', '1.7.1'],
        ['rack', '3.0.8'],
        ['rspec-core', '3.12.2'],
        ['rspec-support', '3.12.1'],
      ),
    );
  });

  it('reads Windows line endings and skips a broken line', () => {
    const crlf = 'GEM\r\n  remote: https://rubygems.org/\r\n  specs:\r\n    rake (13.0.6)\r\n    oops (\r\n    thor (1.2.2)\r\n';
    expect(gemfileLock.parse(crlf)).toEqual(pairs(['rake', '13.0.6'], ['thor', '1.2.2']));
  });
});

describe('go.sum', () => {
  const text = `github.com/davecgh/go-spew v1.1.1 h1:vj9j/u1bqnvCEfJOwUhtlOARqs3+rkHYY13jYWTU97c=
github.com/davecgh/go-spew v1.1.1/go.mod h1:J7Y8YcW2NihsgmVo/mv3lAwl/skON4iLHjSsI+c5H38=
github.com/gorilla/mux v1.8.0 h1:i40aqfkR1h2SlN9hojwV5ZA91wcXFOvkdNIeFDP5koI=
github.com/gorilla/mux v1.8.0/go.mod h1:DVbg23sWSpFRCP0SfiEN6jmj59UnW/n46BH5rLB71So=
github.com/pmezard/go-difflib v1.0.0/go.mod h1:iKH77koFhYxTK1pcRnkKkqfTogsbg7gZNVY4sRDYZ/4=
github.com/stretchr/testify v1.8.4 h1:CcVxjf3Q8PM0mHUKJCdn+eZZtm5yQwehR5yeSVQQcUk=
github.com/stretchr/testify v1.8.4/go.mod h1:sz/lmYIOXD/1dqDmKjjqLyZ2RngseejIcXlSw2iwfAo=
golang.org/x/sys v0.0.0-20220715151400-c0bba94af5f8/go.mod h1:oPkhp1MJrh7nUepCBck5+mAzfO9JrbApNNgaTdGDITg=
gopkg.in/check.v1 v0.0.0-20161208181325-20d25e280405/go.mod h1:Co6ibVJAznAaIkqp8huTwlJQCZ016jof/cbN4VW5Yz0=
github.com/docker/docker v20.10.24+incompatible h1:Ugvxm7a8+Gz6vqQYQQ2W7GYq5EUPaAiuPgIfVyI3dYE=
this line is not a checksum
`;

  it('lists each module version once, /go.mod lines included, in file order', () => {
    expect(goSum.parse(text)).toEqual(
      pairs(
        ['github.com/davecgh/go-spew', 'v1.1.1'],
        ['github.com/gorilla/mux', 'v1.8.0'],
        ['github.com/pmezard/go-difflib', 'v1.0.0'],
        ['github.com/stretchr/testify', 'v1.8.4'],
        ['golang.org/x/sys', 'v0.0.0-20220715151400-c0bba94af5f8'],
        ['gopkg.in/check.v1', 'v0.0.0-20161208181325-20d25e280405'],
        ['github.com/docker/docker', 'v20.10.24+incompatible'],
      ),
    );
  });
});

describe('go.mod', () => {
  const text = `module gitlab.example.com/acme/api

go 1.21

toolchain go1.21.4

require github.com/gorilla/mux v1.8.0

require (
\tgithub.com/jackc/pgx/v5 v5.4.3
\tgithub.com/sirupsen/logrus v1.9.3 // pinned until the hook API settles
\tgolang.org/x/net v0.17.0
\tgitlab.example.com/acme/shared v0.3.1
\tgithub.com/stretchr/testify v1.8.4
)

require (
\tgithub.com/davecgh/go-spew v1.1.1 // indirect
\tgithub.com/jackc/pgpassfile v1.0.0 // indirect
\tgolang.org/x/text v0.13.0 // indirect
\tgithub.com/gorilla/mux v1.8.0 // indirect
)

// The fork carries our HTTP/2 fix until upstream releases it.
replace golang.org/x/net => github.com/acme/net v0.17.1-acme.1

replace (
\tgitlab.example.com/acme/shared => ../shared
\tgithub.com/stretchr/testify v1.8.3 => github.com/stretchr/testify v1.8.2
)

exclude golang.org/x/text v0.12.0

retract v0.9.0 // published by mistake
`;

  it('lists require lines and blocks, indirect ones too, with simple replacements applied', () => {
    expect(goMod.parse(text)).toEqual(
      pairs(
        ['github.com/gorilla/mux', 'v1.8.0'],
        ['github.com/jackc/pgx/v5', 'v5.4.3'],
        ['github.com/sirupsen/logrus', 'v1.9.3'],
        // replaced by the fork; the local ../shared module and the replacement of another
        // testify version do not apply as published versions
        ['github.com/acme/net', 'v0.17.1-acme.1'],
        ['github.com/stretchr/testify', 'v1.8.4'],
        ['github.com/davecgh/go-spew', 'v1.1.1'],
        ['github.com/jackc/pgpassfile', 'v1.0.0'],
        ['golang.org/x/text', 'v0.13.0'],
      ),
    );
  });

  it('applies a replacement of the required version only', () => {
    const mod = 'module m\n\nrequire example.com/a v1.2.0\n\nreplace example.com/a v1.2.0 => example.com/b v1.3.0\n';
    expect(goMod.parse(mod)).toEqual(pairs(['example.com/b', 'v1.3.0']));
  });

  it('keeps what an unterminated block listed', () => {
    expect(goMod.parse('module m\nrequire (\n\texample.com/a v1.0.0\n\tgarbage\n')).toEqual(pairs(['example.com/a', 'v1.0.0']));
  });
});

describe('Pipfile.lock', () => {
  const text = JSON.stringify(
    {
      _meta: {
        hash: { sha256: '8f6b1c2d3e4f5a6b7c8d9e0f1a2b3c4d5e6f7a8b9c0d1e2f3a4b5c6d7e8f9a0b' },
        'pipfile-spec': 6,
        requires: { python_version: '3.11' },
        sources: [{ name: 'pypi', url: 'https://pypi.org/simple', verify_ssl: true }],
      },
      default: {
        certifi: {
          hashes: ['sha256:539cc1d13202e33ca466e88b2807e29f4c13049d6d87031a3c110744495cb082'],
          index: 'pypi',
          markers: "python_version >= '3.6'",
          version: '==2023.7.22',
        },
        django: { hashes: ['sha256:7e4225ec065e0f354ccf7349a22d209de09cc1c074832be9eb84c51c1799c432'], index: 'pypi', version: '==4.2.7' },
        'typing-extensions': { markers: "python_version < '3.11'", version: '==4.8.0' },
        'acme-utils': { editable: true, path: './libs/acme-utils' },
        'legacy-client': { git: 'https://github.com/acme/legacy-client.git', ref: '9c1a6a2b' },
      },
      develop: {
        pytest: { hashes: ['sha256:1d881c6124e08ff0a1bb75ba3ec0bfd8b5354a01c194ddd5a0a870a48d99b002'], index: 'pypi', version: '==7.4.3' },
        certifi: { version: '==2023.7.22' },
      },
    },
    null,
    4,
  );

  it('lists default then develop, without the == and without unpinned checkouts', () => {
    expect(pipfileLock.parse(text)).toEqual(
      pairs(['certifi', '2023.7.22'], ['django', '4.2.7'], ['typing-extensions', '4.8.0'], ['pytest', '7.4.3']),
    );
  });

  it('answers nothing for a file that is not JSON', () => {
    expect(pipfileLock.parse('{"default": {"django": {"version": "==4.2.7"}')).toEqual([]);
  });
});

describe('poetry.lock', () => {
  const text = `# This file is automatically @generated by Poetry 1.7.1 and should not be changed by hand.

[[package]]
name = "certifi"
version = "2023.11.17"
description = "Python package for providing Mozilla's CA Bundle."
optional = false
python-versions = ">=3.6"
files = [
    {file = "certifi-2023.11.17-py3-none-any.whl", hash = "sha256:e036ab49d5b79556f99cfc2d9320b34cfbe5be05c5871b51de9329f0603b0474"},
]

[[package]]
name = "idna"
version = "3.6"
description = "Internationalized Domain Names in Applications (IDNA)"
optional = false
python-versions = ">=3.5"
files = []

[[package]]
name = "pytest"
version = "7.4.3"
description = "pytest: simple powerful testing with Python"
optional = false
python-versions = ">=3.7"
files = []

[package.dependencies]
colorama = {version = "*", markers = "sys_platform == \\"win32\\""}
iniconfig = "*"

[package.extras]
testing = ["argcomplete", "attrs (>=19.2.0)"]

[[package]]
name = "acme-core"
version = "0.4.0"
description = ""
optional = false
python-versions = "^3.11"
files = []
develop = true

[package.source]
type = "directory"
url = "libs/acme-core"

[[package]]
name = "idna"
version = "3.6"
description = "duplicate entry"
optional = false
python-versions = ">=3.5"
files = []

[metadata]
lock-version = "2.0"
python-versions = "^3.11"
content-hash = "b6f0a3f5e1c2d4a7b8c9d0e1f2a3b4c5d6e7f8a9b0c1d2e3f4a5b6c7d8e9f0a1"
`;

  it('lists every [[package]] once, in file order', () => {
    expect(poetryLock.parse(text)).toEqual(
      pairs(['certifi', '2023.11.17'], ['idna', '3.6'], ['pytest', '7.4.3'], ['acme-core', '0.4.0']),
    );
  });

  it('answers nothing for text that is not TOML', () => {
    expect(poetryLock.parse('[[package]]\nname = "idna"\nversion = 3.6.0\n')).toEqual([]);
  });
});

describe('requirements.txt', () => {
  const text = `#
# This file is autogenerated by pip-compile with Python 3.11
# by the following command:
#
#    pip-compile --generate-hashes requirements.in
#
--index-url https://pypi.org/simple
--extra-index-url https://pypi.example.com/simple
-r requirements-base.txt
-c constraints.txt
-e git+https://github.com/acme/tools.git@v1.2#egg=acme-tools
-e ./libs/acme-core

asgiref==3.7.2 \\
    --hash=sha256:89b2ef2247e3b562a16eef663bc0e2e703ec6468e2fa8a5cd61cd449786d4f6e \\
    --hash=sha256:9e0ce3aa93a819ba5b45120216b23878cf6e8525eb3848653452b4192b92afed
    # via django
Django==4.2.7  # the LTS line
requests[socks,security] == 2.31.0
pywin32==306 ; sys_platform == "win32"
typing_extensions==4.8.0; python_version < "3.11"
torch==2.1.0+cpu
numpy>=1.24
pandas~=2.1.0
flask
urllib3==2.*
celery==5.3.4,<6
six===1.16.0
acme-tools @ https://example.com/acme_tools-1.0-py3-none-any.whl
./vendor/localpkg-1.0.tar.gz
asgiref==3.7.2
`;

  it('lists only exact pins, with comments, options, continuations, extras and markers handled', () => {
    expect(requirementsTxt.parse(text)).toEqual(
      pairs(
        ['asgiref', '3.7.2'],
        ['Django', '4.2.7'],
        ['requests', '2.31.0'],
        ['pywin32', '306'],
        ['typing_extensions', '4.8.0'],
        ['torch', '2.1.0+cpu'],
        ['six', '1.16.0'],
      ),
    );
  });
});

describe('pom.xml', () => {
  const text = `<?xml version="1.0" encoding="UTF-8"?>
<project xmlns="http://maven.apache.org/POM/4.0.0"
         xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance"
         xsi:schemaLocation="http://maven.apache.org/POM/4.0.0 https://maven.apache.org/xsd/maven-4.0.0.xsd">
  <modelVersion>4.0.0</modelVersion>
  <parent>
    <groupId>com.acme</groupId>
    <artifactId>acme-parent</artifactId>
    <version>3.2.0</version>
  </parent>
  <artifactId>orders-service</artifactId>
  <packaging>jar</packaging>

  <properties>
    <java.version>17</java.version>
    <jackson.version>2.15.2</jackson.version>
    <slf4j.base>2.0</slf4j.base>
    <slf4j.version>\${slf4j.base}.9</slf4j.version>
    <commons.text.version>1.10</commons.text.version>
  </properties>

  <dependencyManagement>
    <dependencies>
      <dependency>
        <groupId>org.junit</groupId>
        <artifactId>junit-bom</artifactId>
        <version>5.10.0</version>
        <type>pom</type>
        <scope>import</scope>
      </dependency>
      <dependency>
        <groupId>com.google.guava</groupId>
        <artifactId>guava</artifactId>
        <version>32.1.2-jre</version>
      </dependency>
    </dependencies>
  </dependencyManagement>

  <dependencies>
    <!-- JSON -->
    <dependency>
      <groupId>com.fasterxml.jackson.core</groupId>
      <artifactId>jackson-databind</artifactId>
      <version>\${jackson.version}</version>
    </dependency>
    <dependency>
      <groupId>org.slf4j</groupId>
      <artifactId>slf4j-api</artifactId>
      <version>\${slf4j.version}</version>
    </dependency>
    <dependency>
      <groupId>org.apache.commons</groupId>
      <artifactId>commons-text</artifactId>
      <version>\${commons.text.version}</version>
    </dependency>
    <dependency>
      <groupId>com.google.guava</groupId>
      <artifactId>guava</artifactId>
    </dependency>
    <dependency>
      <groupId>\${project.groupId}</groupId>
      <artifactId>orders-api</artifactId>
      <version>\${project.version}</version>
    </dependency>
    <dependency>
      <groupId>org.junit.jupiter</groupId>
      <artifactId>junit-jupiter</artifactId>
      <scope>test</scope>
    </dependency>
    <dependency>
      <groupId>io.netty</groupId>
      <artifactId>netty-handler</artifactId>
      <version>\${netty.version}</version>
    </dependency>
    <dependency>
      <groupId>org.yaml</groupId>
      <artifactId>snakeyaml</artifactId>
      <version>[1.33,2.0)</version>
    </dependency>
    <dependency>
      <groupId>com.fasterxml.jackson.core</groupId>
      <artifactId>jackson-databind</artifactId>
      <version>2.15.2</version>
      <classifier>tests</classifier>
      <scope>test</scope>
    </dependency>
  </dependencies>

  <profiles>
    <profile>
      <id>postgres</id>
      <dependencies>
        <dependency>
          <groupId>org.postgresql</groupId>
          <artifactId>postgresql</artifactId>
          <version>42.6.0</version>
        </dependency>
      </dependencies>
    </profile>
  </profiles>
</project>
`;

  it('lists literal and resolvable versions as group/artifact, skipping ranges and the unresolved', () => {
    expect(pomXml.parse(text)).toEqual(
      pairs(
        ['com.fasterxml.jackson.core/jackson-databind', '2.15.2'],
        ['org.slf4j/slf4j-api', '2.0.9'],
        ['org.apache.commons/commons-text', '1.10'],
        ['com.google.guava/guava', '32.1.2-jre'],
        ['com.acme/orders-api', '3.2.0'],
      ),
    );
  });

  it('does not loop on properties that refer to each other, and reads nothing from broken XML', () => {
    const looping = `<project><properties><a>\${b}</a><b>\${a}</b></properties><dependencies><dependency>
      <groupId>g</groupId><artifactId>x</artifactId><version>\${a}</version></dependency><dependency>
      <groupId>g</groupId><artifactId>y</artifactId><version>1.0</version></dependency></dependencies></project>`;
    expect(pomXml.parse(looping)).toEqual(pairs(['g/y', '1.0']));
    // Each property repeats the next ten times: fully expanded, p0 would be 10^9 characters.
    const doubling = Array.from({ length: 9 }, (_, i) => `<p${i}>${`\${p${i + 1}}`.repeat(10)}</p${i}>`).join('') + '<p9>1</p9>';
    const bomb = `<project><properties>${doubling}</properties><dependencies><dependency><groupId>g</groupId><artifactId>z</artifactId><version>\${p0}</version></dependency></dependencies></project>`;
    const started = Date.now();
    expect(pomXml.parse(bomb)).toEqual([]);
    expect(Date.now() - started).toBeLessThan(1000);
    expect(pomXml.parse('<project><dependencies><dependency><groupId>g</groupId>')).toEqual([]);
  });
});

describe('gradle.lockfile', () => {
  const text = `# This is a Gradle generated file for dependency locking.
# Manual edits can break the build and are not advised.
# This file is expected to be part of source control.
com.fasterxml.jackson.core:jackson-annotations:2.15.2=compileClasspath,runtimeClasspath
com.fasterxml.jackson.core:jackson-databind:2.15.2=compileClasspath,runtimeClasspath
com.google.guava:guava:32.1.2-jre=compileClasspath,runtimeClasspath,testCompileClasspath
org.junit.jupiter:junit-jupiter-api:5.10.0=testCompileClasspath,testRuntimeClasspath
org.slf4j:slf4j-api:2.0.9=runtimeClasspath
not-a-module-line
empty=annotationProcessor,testAnnotationProcessor
`;

  it('lists group/artifact and version of each module line, without empty=', () => {
    expect(gradleLockfile.parse(text)).toEqual(
      pairs(
        ['com.fasterxml.jackson.core/jackson-annotations', '2.15.2'],
        ['com.fasterxml.jackson.core/jackson-databind', '2.15.2'],
        ['com.google.guava/guava', '32.1.2-jre'],
        ['org.junit.jupiter/junit-jupiter-api', '5.10.0'],
        ['org.slf4j/slf4j-api', '2.0.9'],
      ),
    );
  });
});

describe('conan.lock', () => {
  const v04 = JSON.stringify(
    {
      graph_lock: {
        nodes: {
          '0': { ref: 'orders-service/2.3.0', options: 'openssl:shared=False\nzlib:shared=False', requires: ['1', '2'], build_requires: ['3'], path: '../conanfile.py', context: 'host' },
          '1': { ref: 'openssl/1.1.1k', options: 'shared=False', package_id: '6af9cc7cb931c5ad942174fd7838eb655717c709', prev: '0', requires: ['2'], context: 'host' },
          '2': { ref: 'zlib/1.2.11#683857dbd5377d65f26795d4023858f9', options: 'fPIC=True\nshared=False', package_id: 'd50a0d523d98c15bb147b18fa7d203887c38be8b', prev: '0', context: 'host' },
          '3': { ref: 'cmake/3.21.3@acme/stable', package_id: '0a420ff5c47119e668867cdb51baff0eca1fdb68', prev: '0', context: 'build' },
          '4': { ref: 'zlib/1.2.11', context: 'build' },
        },
        revisions_enabled: false,
      },
      version: '0.4',
      profile_host: '[settings]\narch=x86_64\nbuild_type=Release\ncompiler=gcc\nos=Linux\n',
    },
    null,
    1,
  );
  const v05 = JSON.stringify(
    {
      version: '0.5',
      requires: [
        'zlib/1.3#f52e03ae3d251dec704634230cd806a2%1697550931.286',
        'openssl/3.1.4#9b0e1e3d3bd5d1d8c2b8a4c8e4f7b5a1%1698219384.542',
        'fmt/10.1.1@acme/stable#6f8bd4a1e4a0b2f5d3c9e7a1b2c3d4e5%1696000000.1',
      ],
      build_requires: ['cmake/3.27.7#0a8cff4b9e47bd89e2ad0a6d2ac4b3b8%1698069823.86', 'zlib/1.3#f52e03ae3d251dec704634230cd806a2%1697550931.286'],
      python_requires: [],
    },
    null,
    4,
  );

  it('reads the nodes of a 0.4 graph lock, without the consuming conanfile', () => {
    expect(conanLock.parse(v04)).toEqual(pairs(['openssl', '1.1.1k'], ['zlib', '1.2.11'], ['cmake', '3.21.3']));
  });

  it('reads the requires lists of a 0.5 lock', () => {
    expect(conanLock.parse(v05)).toEqual(pairs(['zlib', '1.3'], ['openssl', '3.1.4'], ['fmt', '10.1.1'], ['cmake', '3.27.7']));
  });
});

describe('packages.lock.json', () => {
  const text =
    '\uFEFF' +
    JSON.stringify(
      {
        version: 1,
        dependencies: {
          'net8.0': {
            'Microsoft.Extensions.Logging': {
              type: 'Direct',
              requested: '[8.0.0, )',
              resolved: '8.0.0',
              contentHash: 'tvRkov9tAJ3xP51LCv3FJ2zINmv1P8Hi8lhhtcKGqM+ImiTCC84uOPEI4z8Cdq2C3o9e+Aa0Gw0rmrsJD77W+w==',
              dependencies: { 'Microsoft.Extensions.Logging.Abstractions': '8.0.0' },
            },
            'Newtonsoft.Json': { type: 'Direct', requested: '[13.0.3, )', resolved: '13.0.3', contentHash: 'HrC5BXdl00IP9zeV+0Z848QWPAoCr9P3bDEZguI+gkLcBKAOxix/tLEAAHC+UvDNPv4a2d18lOReHMOagPa+zQ==' },
            'Microsoft.Extensions.Logging.Abstractions': { type: 'Transitive', resolved: '8.0.0', contentHash: 'arDBqTgFCyS0EvRV7O3MZturChstm50OJ0y9bDJvAcmEPJm0FFpFyjU/JLYyStNGGey081DvnQYlncNX5SJJGA==' },
            'Acme.Orders.Domain': { type: 'Project', dependencies: { 'Newtonsoft.Json': '[13.0.3, )' } },
          },
          'net8.0/linux-x64': {
            'Newtonsoft.Json': { type: 'Direct', requested: '[13.0.3, )', resolved: '13.0.3', contentHash: 'HrC5BXdl00IP9zeV+0Z848QWPAoCr9P3bDEZguI+gkLcBKAOxix/tLEAAHC+UvDNPv4a2d18lOReHMOagPa+zQ==' },
            'runtime.linux-x64.Microsoft.DotNet.ILCompiler': { type: 'Transitive', resolved: '8.0.0', contentHash: 'uLDJiA6e1q1xhy9jfSnXxm+JrzLuhmAjbXDI3tdSlNBAqYZsTuRhaaLbX6dTFxx1sI4LF9bIxJE8M2ceDJZr0A==' },
          },
          'net6.0': {
            'Newtonsoft.Json': { type: 'Direct', requested: '[12.0.3, )', resolved: '12.0.3', contentHash: 'x' },
          },
        },
      },
      null,
      2,
    );

  it('lists every framework’s packages once per version, without project references (BOM tolerated)', () => {
    expect(nugetLock.parse(text)).toEqual(
      pairs(
        ['Microsoft.Extensions.Logging', '8.0.0'],
        ['Newtonsoft.Json', '13.0.3'],
        ['Microsoft.Extensions.Logging.Abstractions', '8.0.0'],
        ['runtime.linux-x64.Microsoft.DotNet.ILCompiler', '8.0.0'],
        ['Newtonsoft.Json', '12.0.3'],
      ),
    );
  });
});

describe('build.sbt.lock', () => {
  const text = `{
  "lockVersion" : 1,
  "timestamp" : "2023-10-12T09:41:27.118Z",
  "configurations" : [ "compile", "optional", "provided", "runtime", "test" ],
  "dependencies" : [ {
    "org" : "org.scala-lang",
    "name" : "scala-library",
    "version" : "2.13.12",
    "artifacts" : [ {
      "name" : "scala-library.jar",
      "hash" : "sha1:0d2d4e9e8b3f4a9d1e6c7b2a1f0e9d8c7b6a5f4e"
    } ],
    "configurations" : [ "compile", "optional", "provided", "runtime", "test" ]
  }, {
    "org" : "com.typesafe.akka",
    "name" : "akka-actor_2.13",
    "version" : "2.6.21",
    "artifacts" : [ {
      "name" : "akka-actor_2.13.jar",
      "hash" : "sha1:5b2a4f6e8d0c1b3a5f7e9d1c3b5a7f9e1d3c5b7a"
    } ],
    "configurations" : [ "compile", "runtime", "test" ]
  }, {
    "org" : "org.scalatest",
    "name" : "scalatest_2.13",
    "version" : "3.2.17",
    "artifacts" : [ ],
    "configurations" : [ "test" ]
  }, {
    "name" : "no-organisation",
    "version" : "1.0"
  } ]
}
`;

  it('lists org/name and version of each dependency', () => {
    expect(sbtLock.parse(text)).toEqual(
      pairs(['org.scala-lang/scala-library', '2.13.12'], ['com.typesafe.akka/akka-actor_2.13', '2.6.21'], ['org.scalatest/scalatest_2.13', '3.2.17']),
    );
  });
});

describe('matches', () => {
  const cases: [LockfileFormat, string][] = [
    [composerLock, 'composer.lock'],
    [gemfileLock, 'Gemfile.lock'],
    [gemfileLock, 'gems.locked'],
    [goSum, 'go.sum'],
    [goMod, 'go.mod'],
    [pipfileLock, 'Pipfile.lock'],
    [poetryLock, 'poetry.lock'],
    [requirementsTxt, 'requirements.txt'],
    [pomXml, 'pom.xml'],
    [gradleLockfile, 'gradle.lockfile'],
    [conanLock, 'conan.lock'],
    [nugetLock, 'packages.lock.json'],
    [sbtLock, 'build.sbt.lock'],
  ];

  it.each(cases)('%# matches %s at any depth and no look-alike', (format, file) => {
    expect(format.matches(file)).toBe(true);
    expect(format.matches(`api/${file}`)).toBe(true);
    expect(format.matches(`services/billing/${file}`)).toBe(true);
    expect(format.matches(`${file}.bak`)).toBe(false);
    expect(format.matches(`old-${file}`)).toBe(false);
    expect(format.matches(`${file}/README.md`)).toBe(false);
    expect(format.matches(file.toUpperCase() === file ? file.toLowerCase() : file.toUpperCase())).toBe(false);
  });

  it('gives each file to exactly one format, under GitLab’s package_manager names', () => {
    for (const [format, file] of cases) expect(MORE_FORMATS.filter((f) => f.matches(`x/${file}`))).toEqual([format]);
    expect(MORE_FORMATS.map((f) => f.packageManager)).toEqual([
      'composer', 'bundler', 'go', 'go', 'pipenv', 'poetry', 'pip', 'maven', 'gradle', 'conan', 'nuget', 'sbt',
    ]);
  });
});

describe('every parser on arbitrary text', () => {
  const texts = fc.oneof(
    fc.string(),
    fc.string({ unit: 'binary' }),
    fc.json(),
    // Text shaped like the formats, so the parsers get past their first check.
    fc.array(fc.constantFrom('GEM\n', '  specs:\n', '    a (1)\n', 'require (\n', ')\n', 'x v1 h1:y\n', '[[package]]\n', 'name = "a"\n', '<project>', '<dependency>', '${', '==', '=', ':', '{"dependencies":', '[', ']', '}', '\\\n', '#', '"'), { maxLength: 30 }).map((parts) => parts.join('')),
  );

  prop.prop([texts], { seed: 20261127, numRuns: 300 })('returns an array of string pairs and never throws', (text) => {
    for (const format of MORE_FORMATS) {
      const result = format.parse(text);
      expect(Array.isArray(result)).toBe(true);
      for (const dep of result) {
        expect(typeof dep.name).toBe('string');
        expect(typeof dep.version).toBe('string');
      }
    }
  });
});
