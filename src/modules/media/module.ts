// Media: records, uploads, renditions, tags and the stored files of local storage. Three of its routes
// answer bytes or read a multipart stream: HTTP declarations beside its JSON routes.
import { defineModule } from '../module-description.js';
import { renditionRoute } from './render-route.js';
import { mediaRoutes } from './rest.js';
import { storedFileRoute } from './served-file.js';
import { uploadRoute } from './upload-route.js';
import { registerMediaSchema } from './schema.js';

export const mediaModule = defineModule({
  name: 'media',
  registerSchema: registerMediaSchema,
  scopes: [{ name: 'media', description: 'Media records, uploads and media tags of the caller’s teams' }],
  routes: mediaRoutes,
  httpRoutes: [uploadRoute, renditionRoute, storedFileRoute],
});
