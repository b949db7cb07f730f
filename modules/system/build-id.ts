// The code this bundle was built from: a digest of all of Tama's sources, the same in
// the engine and the adapter of one build (scripts/build.mjs). "source" when run unbundled.
declare const __TAMA_BUILD__: string | undefined;

export const CODE_BUILD: string = typeof __TAMA_BUILD__ === "string" ? __TAMA_BUILD__ : "source";
