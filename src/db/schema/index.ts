// One schema file per area; each area's owner adds tables to its own file.
export * from './users';
export * from './profile';
export * from './keys';
export * from './auth';
export * from './instance';
export * from './audit';
export * from './projects';
export * from './planning';
export * from './issues';
export * from './notes';
export * from './repository';
export * from './protected-branches';
export * from './merge-requests';
export * from './approvals';
export * from './ci';
export * from './project-exports';
export * from './import-state';
export * from './deployments';
<<<<<<< HEAD
export * from './uploads';
export * from './archive-diffs';
=======
export * from './dependencies';
>>>>>>> main
