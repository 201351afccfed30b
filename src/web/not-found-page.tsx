/** The friendly 404: what was not found, and where to go instead. */
import { Layout } from "./layout";

export function NotFoundPage(props: { what: string; back?: { href: string; text: string } }) {
  return (
    <Layout title="Not found">
      <p>{props.what}</p>
      <p>
        It may not have earned credit yet, or the address may be mistyped.{" "}
        {props.back ? (
          <>
            Back to <a href={props.back.href}>{props.back.text}</a>, or see <a href="/">all projects</a>.
          </>
        ) : (
          <>
            See <a href="/">all projects</a>.
          </>
        )}
      </p>
    </Layout>
  );
}
