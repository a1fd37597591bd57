// The default theme, plus the component that draws Mermaid diagrams and a few rules for phones.
import type { Theme } from "vitepress";
import DefaultTheme from "vitepress/theme";
import { MermaidDiagram } from "./mermaid-diagram.ts";
import "./style.css";

const theme: Theme = {
  extends: DefaultTheme,
  enhanceApp({ app }) {
    app.component("MermaidDiagram", MermaidDiagram);
  },
};

export default theme;
