// Mermaid's own prebuilt ES module: the same API as the package's entry, already bundled, so the
// site's build does not process Mermaid's many dependencies again.
declare module "mermaid/dist/mermaid.esm.min.mjs" {
  export { default } from "mermaid";
}
