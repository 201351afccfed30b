/** The frame of every page: head (phone viewport, inline CSS), header, when the data was taken. */
import type { Child } from "hono/jsx";
import { formatTime } from "./format";
import { PAGE_CSS } from "./style";

export interface Crumb {
  readonly href: string;
  readonly text: string;
}

export function Layout(props: {
  title: string;
  crumbs?: readonly Crumb[];
  snapshotTime?: number;
  /** Whether the page shows RAC (then it says that RAC is decayed to the moment of the page). */
  showsRac?: boolean;
  children?: Child;
}) {
  return (
    <html lang="en">
      <head>
        <meta charset="utf-8" />
        <meta name="viewport" content="width=device-width, initial-scale=1" />
        <title>{`${props.title} · Cobblestone`}</title>
        {/* No icon: saves browsers a request for /favicon.ico (a 404). */}
        <link rel="icon" href="data:," />
        {/* A constant of this module, never user data: safe to insert as is. */}
        <style dangerouslySetInnerHTML={{ __html: PAGE_CSS }} />
      </head>
      <body>
        <header>
          <a class="home" href="/">
            Cobblestone
          </a>
          {props.crumbs && props.crumbs.length > 0 ? (
            <nav class="crumbs" aria-label="Breadcrumbs">
              {props.crumbs.map((c) => (
                <>
                  {" › "}
                  <a href={c.href}>{c.text}</a>
                </>
              ))}
            </nav>
          ) : null}
        </header>
        <main>
          <h1>{props.title}</h1>
          {props.snapshotTime === undefined ? null : (
            <p class="taken">
              Data as of{" "}
              <time datetime={new Date(props.snapshotTime * 1000).toISOString()} data-snapshot-time={String(props.snapshotTime)}>
                {formatTime(props.snapshotTime)}
              </time>
              {props.showsRac === false ? "." : "; RAC decayed to the time of this page."}
            </p>
          )}
          {props.children}
        </main>
        <footer>
          Credit in Cobblestones (1/200 of a day of a 1 GFLOPS processor), granted the way BOINC's CreditNew grants it. The same numbers as
          JSON: <a href="/docs">the API</a>.
        </footer>
      </body>
    </html>
  );
}
