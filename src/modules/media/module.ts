// Media: records, uploads, renditions, tags and the stored files of local storage. Three of its routes
// answer bytes or read a multipart stream: HTTP declarations beside its JSON routes. Its service is the
// configured storage; its worker sweeps stored files a crash left without a record (sweep.ts).
import { systemDb } from '../../db/request-db.js';
import { defineModule, defineService } from '../module-description.js';
import { renditionRoute } from './render-route.js';
import { mediaRoutes } from './rest.js';
import { storedFileRoute } from './served-file.js';
import { uploadRoute } from './upload-route.js';
import { registerMediaSchema } from './schema.js';
import { createStorage, mediaStorageKey } from './storage.js';
import { startSweeper } from './sweep.js';

export const mediaModule = defineModule({
  name: 'media',
  registerSchema: registerMediaSchema,
  scopes: [{ name: 'media', description: 'Media records, uploads and media tags of the caller’s teams' }],
  routes: mediaRoutes,
  httpRoutes: [uploadRoute, renditionRoute, storedFileRoute],
  services: [defineService({ key: mediaStorageKey, create: ({ config, logger }) => createStorage(config.media, logger), close: async (storage) => storage.close?.() })],
  workers: [{
    name: 'media: orphan sweep',
    // At start-up (spool files, stored files without a record), then every MEDIA_ORPHAN_SWEEP_MINUTES.
    start: ({ config, database, logger, now, services }) => startSweeper(
      { storage: services.get(mediaStorageKey), system: systemDb(database, 'media: orphan sweep'), uploadDir: config.media.uploadDir, now, log: logger.child({ module: 'media-sweep' }) },
      config.media.orphans,
    ),
  }],
});
