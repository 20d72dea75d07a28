/**
 * GitLab's package managers and the OSV ecosystems their packages are published in, with the name
 * form an advisory and a dependency are matched by (OSV names PyPI packages in any spelling of the
 * normalised PEP 503 name, and NuGet's are case-insensitive).
 */

/** ee/lib/api/dependencies.rb `package_manager` values (the newest list; reference 7.1). */
export const PACKAGE_MANAGERS = ['bundler', 'yarn', 'npm', 'pnpm', 'maven', 'composer', 'pip', 'conan', 'go', 'nuget', 'sbt', 'gradle', 'pipenv', 'poetry', 'setuptools', 'apk', 'conda'] as const;

const ECOSYSTEM: Record<string, string> = {
  npm: 'npm',
  yarn: 'npm',
  pnpm: 'npm',
  bundler: 'RubyGems',
  composer: 'Packagist',
  go: 'Go',
  pip: 'PyPI',
  pipenv: 'PyPI',
  poetry: 'PyPI',
  setuptools: 'PyPI',
  maven: 'Maven',
  gradle: 'Maven',
  sbt: 'Maven',
  nuget: 'NuGet',
  conan: 'ConanCenter',
  apk: 'Alpine',
  conda: 'conda',
};

export const ecosystemOf = (packageManager: string): string => ECOSYSTEM[packageManager] ?? packageManager;

/** An OSV ecosystem without its release suffix (`Alpine:v3.18` → `Alpine`). */
export const baseEcosystem = (ecosystem: string) => ecosystem.split(':')[0];

/** The name an advisory and a dependency are matched by, in `ecosystem`. */
export function packageKey(ecosystem: string, name: string): string {
  const lower = name.trim().toLowerCase();
  return ecosystem === 'PyPI' ? lower.replace(/[-_.]+/g, '-') : lower;
}
