/**
 * Custom emoji images (upstream resize_emoji), with sharp: PNG, JPEG, GIF and WebP are
 * accepted; a still image is cropped to EMOJI_SIZE×EMOJI_SIZE in its own format; an
 * animated GIF or WebP stays animated, fitted inside the square with transparent
 * padding, and gets a still PNG of its first frame.
 */
import sharp from "sharp";
import { ApiError } from "../errors.js";

/** Upstream's DEFAULT_EMOJI_SIZE. */
export const EMOJI_SIZE = 64;
/** Upstream's IMAGE_BOMB_TOTAL_PIXELS: larger images are refused before decoding. */
const MAX_PIXELS = 90_000_000;

const EXTENSIONS = { png: "png", jpeg: "jpg", gif: "gif", webp: "webp" } as const;
type AcceptedFormat = keyof typeof EXTENSIONS;

export interface EmojiImage {
  /** File extension of `data`: png, jpg, gif or webp. */
  ext: string;
  data: Buffer;
  /** The first frame as PNG, only for animated images. */
  still: Buffer | null;
}

/** Upstream's BadImageError: code BAD_IMAGE. */
const badImage = (msg: string) => new ApiError(msg, { code: "BAD_IMAGE" });

function accepted(format: string | undefined): format is AcceptedFormat {
  return format !== undefined && Object.hasOwn(EXTENSIONS, format);
}

export async function processEmojiImage(input: Buffer): Promise<EmojiImage> {
  let meta: sharp.Metadata;
  try {
    meta = await sharp(input, { limitInputPixels: false }).metadata();
  } catch {
    throw badImage("Invalid image format");
  }
  const format = meta.format;
  if (!accepted(format)) throw badImage("Invalid image format");
  const pages = meta.pages ?? 1;
  const frameHeight = meta.pageHeight ?? meta.height ?? 0;
  if ((meta.width ?? 0) * frameHeight * Math.min(pages, 3) > MAX_PIXELS) throw badImage("Image size exceeds limit.");
  const ext = EXTENSIONS[format];
  try {
    if (pages <= 1) {
      const data = await sharp(input).rotate().resize(EMOJI_SIZE, EMOJI_SIZE, { fit: "cover" }).toFormat(format).toBuffer();
      return { ext, data, still: null };
    }
    const transparent = { r: 0, g: 0, b: 0, alpha: 0 };
    const data = await sharp(input, { animated: true })
      .resize(EMOJI_SIZE, EMOJI_SIZE, { fit: "contain", background: transparent })
      .toFormat(format)
      .toBuffer();
    const still = await sharp(input, { pages: 1 }).resize(EMOJI_SIZE, EMOJI_SIZE, { fit: "contain", background: transparent }).png().toBuffer();
    return { ext, data, still };
  } catch {
    throw badImage("Image is corrupted or truncated");
  }
}
