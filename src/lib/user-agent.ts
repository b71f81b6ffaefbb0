import { rememberingLast } from "./remembering-last.js";

const productOf = rememberingLast((ua: string) => ua.split(/[/ ]/)[0]);

/** The product name a User-Agent starts with ("ParleyMobile/1.2 (Android)" → "ParleyMobile"). */
export function userAgentProduct(ua: string | undefined): string {
  return ua === undefined ? "" : productOf(ua);
}
