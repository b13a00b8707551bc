import uWS from '@trufflesuite/uws-js-unofficial';

/** The uWebSockets.js module, loaded once. */
export const uws = uWS;

/**
 * Whether the native uWS build loaded. On an unsupported Node the package silently falls back to
 * a slow pure-JS server; `main` refuses to hide that.
 */
export const isNativeUws = /\[native code\]/.test(Function.prototype.toString.call(uWS.App));
