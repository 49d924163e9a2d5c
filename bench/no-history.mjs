// Preloaded (`node --import`) into the instance that measures what record history costs on UPDATE:
// gives the built `tasks` definition `history: { keep: false }` before the product starts, so the same
// build runs with and without history (bench/history-update.ts). Production turns it off the same way,
// in the definition; the bench does not edit the product's files for it.
const { entityDefinitions } = await import('../dist/config/entities/index.js');
const tasks = entityDefinitions.find((d) => d.slug === 'tasks');
if (!tasks) throw new Error('no-history: no tasks entity in the build');
tasks.history = { keep: false };
