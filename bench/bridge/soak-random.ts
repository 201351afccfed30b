/** The soak's seeded numbers in [0, 1): the project's own generator (src/credit/seeded-random.ts), so a soak's workload is the same for the same --seed. */
export { seededRandom } from "../../src/credit/seeded-random";

export type Random = () => number;
