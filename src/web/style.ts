/**
 * The pages' whole stylesheet, inlined in each page (nothing is fetched from elsewhere).
 * Narrow screens first: tables scroll sideways inside their box instead of widening the page.
 */
export const PAGE_CSS = `
:root{color-scheme:light;--fg:#1d2430;--muted:#5b6677;--line:#d9dee7;--accent:#2f6fb3;--bar:#7fb0e0;--rac:#c0392b;--bg:#fff;--soft:#f4f6f9}
*{box-sizing:border-box}
body{margin:0;font:16px/1.45 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;color:var(--fg);background:var(--bg)}
header,main,footer{max-width:960px;margin:0 auto;padding:0 16px}
header{padding-top:12px;padding-bottom:8px;border-bottom:1px solid var(--line)}
header a.home{font-weight:700;color:var(--fg);text-decoration:none}
nav.crumbs{font-size:14px;color:var(--muted)}
h1{font-size:1.5rem;margin:16px 0 4px;overflow-wrap:anywhere}
h2{font-size:1.15rem;margin:28px 0 8px}
a{color:var(--accent)}
.taken{color:var(--muted);font-size:14px;margin:0 0 12px}
dl.facts{display:grid;grid-template-columns:repeat(auto-fill,minmax(150px,1fr));gap:8px;margin:12px 0}
dl.facts div{background:var(--soft);border-radius:6px;padding:8px 10px}
dl.facts dt{font-size:13px;color:var(--muted)}
dl.facts dd{margin:0;font-size:1.2rem;font-weight:600;overflow-wrap:anywhere}
.scroll{overflow-x:auto}
table{border-collapse:collapse;width:100%;font-size:14px}
th,td{padding:6px 8px;border-bottom:1px solid var(--line);text-align:left;white-space:nowrap}
td.num,th.num{text-align:right;font-variant-numeric:tabular-nums}
td.name{white-space:normal;overflow-wrap:anywhere;min-width:8em}
.switch{font-size:14px;margin:4px 0 8px}
.switch a,.switch strong{display:inline-block;padding:2px 8px;border:1px solid var(--line);border-radius:4px;margin-right:4px}
.switch strong{background:var(--soft)}
.boards{display:grid;grid-template-columns:repeat(auto-fit,minmax(260px,1fr));gap:16px}
figure.chart{margin:8px 0}
.chart-svg{width:100%;height:auto;display:block}
.chart-svg text{font-size:12px;fill:var(--muted)}
.chart-svg .tick line{stroke:var(--line)}
.chart-svg .bars rect{fill:var(--bar)}
.chart-svg path.rac{fill:none;stroke:var(--rac);stroke-width:2}
.index-chart rect.over{fill:var(--bar)}.index-chart rect.under{fill:#e0b07f}
.index-chart line.interval{stroke:var(--fg);stroke-width:2}.index-chart line.centre{stroke:var(--fg)}
figcaption{font-size:13px;color:var(--muted)}
.first-credit-note{display:block;margin-top:2px}
.key{display:inline-block;width:12px;height:12px;vertical-align:-1px;margin-left:8px}
.key-credit{background:var(--bar)}
.key-rac{height:3px;vertical-align:3px;background:var(--rac)}
.muted{color:var(--muted)}
.alarm{color:#a4262c}
footer{margin-top:32px;padding-top:8px;padding-bottom:24px;border-top:1px solid var(--line);font-size:13px;color:var(--muted)}
@media (max-width:480px){body{font-size:15px}h1{font-size:1.3rem}th,td{padding:5px 6px}}
/* The chart scales down with the screen, its type with it: larger type, fewer dates on a phone. */
@media (max-width:600px){.chart-svg text{font-size:20px}.chart-svg text.mid{display:none}}
`;
