// sharp (libvips), loaded on first use: about 28 MB of resident memory that a server which only
// receives videos or serves files never pays. libvips' operation cache is off: every image this
// server reads is read once (dimensions on upload) or rendered once and kept on storage (renditions),
// so the cache (up to 50 MB by default) would only hold memory.
import type Sharp from 'sharp';

let loading: Promise<typeof Sharp> | undefined;

/** The sharp function, loading the library the first time. */
export function loadSharp(): Promise<typeof Sharp> {
  return (loading ??= import('sharp').then(({ default: sharp }) => {
    sharp.cache(false);
    return sharp;
  }));
}
