// Seed builders for media: real files made in the test (sharp images, an MP4 header) and uploads
// through the front door as multipart form data.
import sharp from 'sharp';
import type { JsonResponse, TestApp } from './test-app.js';

export interface UploadFile {
  name: string;
  content: Uint8Array;
  /** The part's Content-Type as the client declares it (default application/octet-stream). */
  type?: string;
}

/** A solid-color PNG of the given size. */
export const pngFile = (width: number, height: number, color = '#c03020') =>
  sharp({ create: { width, height, channels: 3, background: color } }).png().toBuffer();

/** A solid-color JPEG; with `orientation` its EXIF Orientation tag (6: shown rotated 90°, so width and height swap). */
export const jpegFile = (width: number, height: number, orientation?: number) => {
  const image = sharp({ create: { width, height, channels: 3, background: '#2060c0' } }).jpeg();
  return (orientation ? image.withMetadata({ orientation }) : image).toBuffer();
};

/** A PNG of random noise, which does not compress: about width × height × 3 bytes. */
export const noisyPng = (width: number, height: number) =>
  sharp({ create: { width, height, channels: 3, background: '#000', noise: { type: 'gaussian', mean: 128, sigma: 90 } } }).png({ compressionLevel: 0 }).toBuffer();

/** A JPEG of random noise (large: about width × height bytes); with `orientation` its EXIF Orientation tag. */
export const noisyJpeg = (width: number, height: number, orientation?: number) => {
  const image = sharp({ create: { width, height, channels: 3, background: '#000', noise: { type: 'gaussian', mean: 128, sigma: 90 } } }).jpeg({ quality: 95 });
  return (orientation ? image.withMetadata({ orientation }) : image).toBuffer();
};

/** The start of an MP4 file: an ftyp box (brand isom), then a free box. Enough for its type to be known. */
export function mp4File(): Uint8Array {
  const ftyp = Buffer.concat([Buffer.from([0, 0, 0, 0x18]), Buffer.from('ftypisom'), Buffer.from([0, 0, 2, 0]), Buffer.from('isomiso2')]);
  const free = Buffer.concat([Buffer.from([0, 0, 0x10, 0x08]), Buffer.from('free'), Buffer.alloc(0x1000)]);
  return Buffer.concat([ftyp, free]);
}

/** POST /api/v1/media/upload with the files in the `files` field. */
export async function upload(t: TestApp, files: UploadFile[], headers: Record<string, string> = {}, field = 'files'): Promise<JsonResponse> {
  const form = new FormData();
  for (const file of files) form.append(field, new Blob([file.content as Uint8Array<ArrayBuffer>], { type: file.type ?? 'application/octet-stream' }), file.name);
  const response = await t.fetch('/api/v1/media/upload', { method: 'POST', body: form, headers });
  const text = await response.text();
  return { status: response.status, headers: response.headers, body: text ? JSON.parse(text) : null };
}
