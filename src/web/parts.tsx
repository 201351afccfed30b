/** Small pieces the pages share: a number with its exact value, the switch links, a fact. */
import type { Child } from "hono/jsx";

/**
 * A number as people read it, with the exact value in <data value>: machines (and the
 * tests) read the value, people the text.
 */
export function Num(props: { value: number; text: string; name?: string }) {
  return (
    <data value={String(props.value)} data-name={props.name}>
      {props.text}
    </data>
  );
}

/** One of several plain links (no script): the chosen one is bold text, not a link. */
export function Switch(props: { label: string; options: readonly { href: string; text: string; current: boolean }[] }) {
  return (
    <p class="switch">
      <span class="muted">{props.label}: </span>
      {props.options.map((o) => (o.current ? <strong aria-current="true">{o.text}</strong> : <a href={o.href}>{o.text}</a>))}
    </p>
  );
}

export function Fact(props: { term: string; children?: Child }) {
  return (
    <div>
      <dt>{props.term}</dt>
      <dd>{props.children}</dd>
    </div>
  );
}

/** A table that scrolls sideways on a narrow screen instead of widening the page. */
export function Scroll(props: { children?: Child }) {
  return <div class="scroll">{props.children}</div>;
}
