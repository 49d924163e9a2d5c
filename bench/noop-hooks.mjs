// Preloaded (`node --import`) into the S14 instance that measures what hooks cost on CREATE: gives
// the built `tasks` definition a no-op beforeChange and afterChange before the product starts, so the
// same build runs with and without hooks (bench/task-creates.ts). The product itself has no switch for it.
const { entityDefinitions } = await import('../dist/config/entities/index.js');
const tasks = entityDefinitions.find((d) => d.slug === 'tasks');
if (!tasks) throw new Error('noop-hooks: no tasks entity in the build');
tasks.hooks = { beforeChange() {}, afterChange() {} };
