// The wire of one replay: what the agent sent the model and what came back, request by request.
// Collapsed under the replay; opened, a player steps through the run (buttons, or the arrow keys,
// Home and End while it has focus). Before the page has mounted, and so without JavaScript, the
// whole wire shows as JSON instead.

import { defineComponent, h, onMounted, ref, type VNode } from "vue";
import type { WireItem, WireStep } from "../../lib/wire.ts";

// What lib/markdown.ts puts in the `wire` attribute.
interface WireData {
  version: number;
  stage: string;
  scenario: string;
  replay: string;
  /** Present when the wire keeps part of a long run: its first request's number, and of how many. */
  kept?: { first: number; of: number };
  steps: WireStep[];
}

export const WireView = defineComponent({
  name: "WireView",
  props: { wire: { type: String, required: true } },
  setup(props) {
    const data = JSON.parse(decodeURIComponent(props.wire)) as WireData;
    const name = `${data.stage}/${data.scenario}`;
    // Anchors are per page: two replays (or two steps) may use the same tool call id.
    const prefix = `wire-${slug(data.stage)}-${slug(data.scenario)}`;
    const total = data.steps.length;
    // Step k is the run's request `first + k - 1`, of `of` in all.
    const first = data.kept?.first ?? 1;
    const of = data.kept?.of ?? total;
    const mounted = ref(false);
    const open = ref(false);
    const step = ref(1);
    const details = ref<HTMLDetailsElement>();
    onMounted(() => {
      mounted.value = true;
      // A reader may have opened it before the script took over.
      open.value = details.value?.open ?? false;
    });

    function go(to: number): void {
      step.value = Math.min(total, Math.max(1, to));
    }

    function onKeydown(event: KeyboardEvent): void {
      const keys: Record<string, number> = {
        ArrowLeft: step.value - 1,
        ArrowRight: step.value + 1,
        Home: 1,
        End: total,
      };
      const to = keys[event.key];
      if (to === undefined || event.altKey || event.ctrlKey || event.metaKey) return;
      // Home and End would otherwise scroll the page.
      event.preventDefault();
      go(to);
    }

    function player(): VNode {
      const k = step.value;
      const current = data.steps[k - 1] as WireStep;
      // Each tool call gets one anchor in this view; its result links to it.
      const anchors = new Map<string, string>();
      for (const item of [...current.sent, ...current.answer]) {
        if (item.kind === "tool_call" && item.id !== undefined && !anchors.has(item.id)) {
          anchors.set(item.id, `${prefix}-${k}-${slug(item.id)}`);
        }
      }
      const given = new Set<string>();
      const item = (value: WireItem) => itemView(value, anchors, given);
      // A message of the request: its role once, then its texts, calls and results.
      const message = (items: WireItem[], fresh: boolean, error = false) =>
        h(
          "li",
          {
            class: ["wire-message", { "wire-new": fresh, "wire-error": error }],
            "data-role": items[0]?.role,
          },
          [
            h("div", { class: "wire-item-head" }, [
              h("span", { class: "wire-role" }, items[0]?.role ?? ""),
              fresh ? h("span", { class: "wire-new-label" }, "new") : null,
              error ? h("span", { class: "wire-error-label" }, "error") : null,
            ]),
            ...items.map(item),
          ],
        );
      const stop = [
        current.stop === undefined ? `HTTP ${current.status}` : `stop reason: ${current.stop}`,
        current.streamed ? `streamed as ${current.events} events` : "not streamed",
      ].join(" · ");
      return h(
        "div",
        {
          class: "wire-player",
          tabindex: 0,
          role: "group",
          "aria-label": `Wire of ${name}, request ${first + k - 1} of ${of}: left and right arrow keys step`,
          "data-step": k,
          onKeydown,
        },
        [
          h("div", { class: "wire-nav" }, [
            h(
              "button",
              { type: "button", class: "wire-prev", disabled: k === 1, onClick: () => go(k - 1) },
              "Previous",
            ),
            h(
              "h4",
              { class: "wire-heading", "aria-live": "polite" },
              `Request ${first + k - 1} of ${of}`,
            ),
            h(
              "button",
              {
                type: "button",
                class: "wire-next",
                disabled: k === total,
                onClick: () => go(k + 1),
              },
              "Next",
            ),
          ]),
          h(
            "p",
            { class: "wire-meta" },
            `${current.request.method} ${current.request.path} → HTTP ${current.status} (${current.api} API)`,
          ),
          h("div", { class: "wire-sent" }, [
            h("h5", "What the agent sent"),
            h(
              "ol",
              { class: "wire-items" },
              messagesOf(current.sent).map(({ items, from }) =>
                message(items, from >= current.newFrom),
              ),
            ),
          ]),
          h("div", { class: "wire-answer" }, [
            h("h5", "What the model answered"),
            h("ol", { class: "wire-items" }, [
              message(
                current.answer,
                false,
                current.answer.some((value) => value.isError === true),
              ),
            ]),
            h("p", { class: "wire-stop" }, stop),
          ]),
          h("details", { class: "wire-raw" }, [
            h("summary", "Raw JSON of this request and response"),
            h("pre", { class: "wire-json" }, JSON.stringify(current.request, null, 2)),
            h("pre", { class: "wire-json" }, JSON.stringify(current.response, null, 2)),
          ]),
        ],
      );
    }

    return () =>
      h("div", { class: "wire-view", "data-steps": total, "data-wire": name }, [
        h(
          "details",
          {
            ref: details,
            class: "wire-details",
            open: open.value,
            onToggle: (event: Event) => {
              open.value = (event.currentTarget as HTMLDetailsElement).open;
            },
          },
          [
            h(
              "summary",
              data.kept === undefined
                ? `Wire: ${total} ${total === 1 ? "request" : "requests"}`
                : `Wire: requests ${first} to ${first + total - 1} of ${of}`,
            ),
            // Only an open player is in the page: its anchors exist only while it shows.
            mounted.value
              ? open.value
                ? player()
                : null
              : h("pre", { class: "wire-json" }, json(data)),
          ],
        ),
      ]);
  },
});

// The sent items, grouped by the message that holds them, each with its first item's place.
function messagesOf(items: WireItem[]): { items: WireItem[]; from: number }[] {
  const messages: { items: WireItem[]; from: number }[] = [];
  items.forEach((item, index) => {
    const last = messages.at(-1);
    if (
      last !== undefined &&
      item.message !== undefined &&
      last.items[0]?.message === item.message
    ) {
      last.items.push(item);
    } else {
      messages.push({ items: [item], from: index });
    }
  });
  return messages;
}

function itemView(item: WireItem, anchors: Map<string, string>, given: Set<string>): VNode {
  let id: string | undefined;
  if (item.kind === "tool_call" && item.id !== undefined) {
    const anchor = anchors.get(item.id);
    if (anchor !== undefined && !given.has(anchor)) {
      given.add(anchor);
      id = anchor;
    }
  }
  let body: (VNode | string)[];
  if (item.kind === "tool_call") {
    body = [
      h("span", { class: "wire-what" }, ["calls ", h("code", item.name ?? "")]),
      h("pre", { class: "wire-input" }, JSON.stringify(item.input ?? {}, null, 2)),
    ];
  } else if (item.kind === "tool_result") {
    const call = item.id === undefined ? undefined : anchors.get(item.id);
    const label = `call ${item.id ?? "?"}`;
    body = [
      h("span", { class: "wire-what" }, [
        "result of ",
        call === undefined ? h("code", label) : h("a", { href: `#${call}` }, label),
      ]),
      h("pre", { class: "wire-text" }, item.text ?? ""),
    ];
  } else {
    body = [h("div", { class: "wire-text" }, item.text ?? "")];
  }
  return h(
    "div",
    {
      id,
      class: ["wire-item", { "wire-error": item.isError === true }],
      "data-role": item.role,
      "data-kind": item.kind,
      "data-tool-id": item.id,
    },
    body,
  );
}

// The wire as it is stored, for a reader without JavaScript.
function json(data: WireData): string {
  const { version, stage, scenario, replay, steps } = data;
  const exchanges = steps.map(({ api, request, response }) => ({ api, request, response }));
  return JSON.stringify({ version, stage, scenario, replay, exchanges }, null, 2);
}

function slug(value: string): string {
  return value.replace(/[^A-Za-z0-9_-]+/g, "-");
}
