/** Project URL keys, and the daily series with gaps filled, as CSV. */
import { describe, expect, it } from "vitest";
import { fillDailySeries, seriesCsv } from "../../src/credit/daily-series";
import { projectUrlKey } from "../../src/credit/project-url";

describe("project URL keys", () => {
  it("the same project under http/https, host case and trailing slashes has one key", () => {
    for (const url of ["https://einsteinathome.org/", "http://EinsteinAtHome.org", "https://einsteinathome.org:443//"]) {
      expect(projectUrlKey(url)).toBe("einsteinathome.org/");
    }
    expect(projectUrlKey("https://boinc.bakerlab.org/rosetta/")).toBe("boinc.bakerlab.org/rosetta/");
    expect(projectUrlKey("http://x.org:8080/p")).toBe("x.org:8080/p/");
  });

  it("what is not a project master URL has no key", () => {
    for (const url of ["einsteinathome.org", "ftp://x.org/", "https://x.org/?a=1", "https://x.org/#f", "https://u:p@x.org/", ""]) {
      expect(projectUrlKey(url), url).toBeNull();
    }
  });
});

describe("daily series", () => {
  const row = (day: number, ec: number, totalEc: number) => ({
    day,
    ec,
    claimedEc: ec,
    cpuTime: 0,
    gpuTime: 0,
    njobsSuccess: 1,
    njobsError: 0,
    totalEc,
    confirmedEc: null,
    factor: null,
    windowGranted: null,
    windowEstimated: null,
  });

  it("days without a row have zero deltas and carry the running total", () => {
    // Total before the range: 10. Day 2: +5 (total 15); day 4: +1 (total 16).
    const s = fillDailySeries([row(2, 5, 15), row(4, 1, 16)], 1, 5, 10);
    expect(s.map((p) => [p.ec, p.total_ec, p.njobs_success])).toEqual([
      [0, 10, 0],
      [5, 15, 1],
      [0, 15, 0],
      [1, 16, 1],
      [0, 16, 0],
    ]);
    expect(s[0]!.date).toBe("1970-01-02");
  });

  it("CSV: a header, then one line per day; unknown values are empty", () => {
    const csv = seriesCsv(fillDailySeries([row(20_000, 2.5, 2.5)], 20_000, 20_000, 0));
    expect(csv).toBe(
      "date,ec,cpu_time,gpu_time,njobs_success,njobs_error,total_ec,claimed_ec,confirmed_ec,factor,window_granted,window_estimated\r\n" +
        "2024-10-04,2.5,0,0,1,0,2.5,2.5,,,,\r\n",
    );
  });
});
