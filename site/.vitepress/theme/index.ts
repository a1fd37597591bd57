// The default theme, plus the components that draw Mermaid diagrams and open a replay into its
// wire, and a few rules for phones.
import type { Theme } from "vitepress";
import DefaultTheme from "vitepress/theme";
import { MermaidDiagram } from "./mermaid-diagram.ts";
import { WireView } from "./wire-view.ts";
import "./style.css";

const theme: Theme = {
  extends: DefaultTheme,
  enhanceApp({ app }) {
    app.component("MermaidDiagram", MermaidDiagram);
    app.component("WireView", WireView);
  },
};

export default theme;
