// One Mermaid diagram, drawn in the browser after the page has mounted. Mermaid is loaded on
// demand with `startOnLoad` off and never sees a `.mermaid` element: its own start-up cannot
// race this component and replace a good diagram with its error picture. Until it is drawn (and
// without JavaScript) the diagram's source shows instead.

import { useData } from "vitepress";
import { defineComponent, h, onMounted, ref, watch } from "vue";

let counter = 0;

// The server build never draws, so Mermaid (large) stays out of it.
const loadMermaid = import.meta.env.SSR
  ? undefined
  : () => import("mermaid/dist/mermaid.esm.min.mjs");

export const MermaidDiagram = defineComponent({
  name: "MermaidDiagram",
  props: { graph: { type: String, required: true } },
  setup(props) {
    const { isDark } = useData();
    const svg = ref("");
    const failure = ref("");
    const id = `agent-code-mermaid-${++counter}`;
    async function draw(): Promise<void> {
      if (loadMermaid === undefined) return;
      const { default: mermaid } = await loadMermaid();
      mermaid.initialize({
        startOnLoad: false,
        securityLevel: "strict",
        theme: isDark.value ? "dark" : "default",
      });
      try {
        const source = decodeURIComponent(props.graph);
        svg.value = (await mermaid.render(`${id}-${isDark.value ? "dark" : "light"}`, source)).svg;
        failure.value = "";
      } catch (error) {
        failure.value = error instanceof Error ? error.message : String(error);
        console.error(`Mermaid could not draw a diagram: ${failure.value}`);
      }
    }
    onMounted(draw);
    watch(isDark, draw);
    return () => {
      if (svg.value !== "") return h("div", { class: "vp-mermaid", innerHTML: svg.value });
      const source = h("pre", { class: "vp-mermaid-source" }, decodeURIComponent(props.graph));
      if (failure.value === "") return h("div", { class: "vp-mermaid" }, [source]);
      return h("div", { class: "vp-mermaid vp-mermaid-failed" }, [
        h("p", `This diagram could not be drawn: ${failure.value}`),
        source,
      ]);
    };
  },
});
