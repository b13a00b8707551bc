/**
 * One gamma-distributed draw (Marsaglia and Tsang; shape below 1 through the boost
 * `gamma(shape + 1) · U^(1/shape)`), from a uniform source.
 */
function drawGamma(shape: number, random: () => number): number {
  if (shape < 1) return drawGamma(shape + 1, random) * Math.pow(1 - random(), 1 / shape);
  const d = shape - 1 / 3;
  const c = 1 / Math.sqrt(9 * d);
  for (;;) {
    let x: number;
    let v: number;
    do {
      // A standard normal by Box-Muller.
      x = Math.sqrt(-2 * Math.log(1 - random())) * Math.cos(2 * Math.PI * random());
      v = 1 + c * x;
    } while (v <= 0);
    v = v * v * v;
    const u = 1 - random();
    if (Math.log(u) < 0.5 * x * x + d - d * v + d * Math.log(v)) return d * v;
  }
}

/**
 * Open-loop arrival times as vLLM's `bench serve` draws them: gaps from a gamma distribution with
 * shape `burstiness` and mean 1/rate (burstiness 1 is a Poisson process). Returns the gap in ms.
 */
export function arrivalGaps(options: { rate: number; burstiness: number; random: () => number }): () => number {
  const scale = 1 / (options.rate * options.burstiness);
  return () => drawGamma(options.burstiness, options.random) * scale * 1000;
}
