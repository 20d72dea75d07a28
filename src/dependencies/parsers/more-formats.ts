/**
 * The lockfile formats beyond JavaScript's (index.ts joins them into LOCKFILE_FORMATS).
 *
 * What GitLab calls them, as read in GitLab's source and docs:
 * - `package_manager` values: the API's allowed list (ee/lib/api/dependencies.rb, in the reference
 *   7.1) and the "Package manager" column of doc/user/application_security/dependency_scanning
 *   ("Supported languages and package managers"): composer.lock -> composer, Gemfile.lock and
 *   gems.locked -> bundler, go.sum -> go, Pipfile.lock -> pipenv, poetry.lock -> poetry,
 *   requirements.txt -> pip, pom.xml -> maven, conan.lock -> conan, packages.lock.json -> nuget;
 *   app/models/concerns/enums/sbom.rb maps the lockfile types `gomod` -> go,
 *   `gradle-lockfile` -> gradle and `sbt-lockfile` -> sbt.
 * - names: GitLab stores an SBOM component's name as its package URL's namespace and name joined by
 *   `/` (lib/gitlab/ci/reports/sbom/component.rb `name`, Enums::Sbom.use_namespaced_name?, true for
 *   every language package type). So Maven, Gradle and sbt names read `org.slf4j/slf4j-api` (not
 *   `group:artifact`), Go names are the module path, Composer names `vendor/package`, and NuGet,
 *   PyPI, RubyGems and Conan names are bare.
 */
import { composerLock } from './composer';
import { conanLock } from './conan-lock';
import { gemfileLock } from './gemfile-lock';
import { goMod } from './go-mod';
import { goSum } from './go-sum';
import { gradleLockfile } from './gradle-lockfile';
import { nugetLock } from './nuget-lock';
import { pipfileLock } from './pipfile-lock';
import { poetryLock } from './poetry-lock';
import { pomXml } from './pom-xml';
import { requirementsTxt } from './requirements-txt';
import { sbtLock } from './sbt-lock';
import type { LockfileFormat } from './types';

export const MORE_FORMATS: LockfileFormat[] = [
  composerLock,
  gemfileLock,
  goSum,
  goMod,
  pipfileLock,
  poetryLock,
  requirementsTxt,
  pomXml,
  gradleLockfile,
  conanLock,
  nugetLock,
  sbtLock,
];
