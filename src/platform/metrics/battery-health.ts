/** How worn a battery is, from GET /peripherals/devices/battery (docs/system-paths.md §Guide paths). */
/** Battery health from the capacity left of the design capacity. */
export function batteryHealth(maxCapacity: number, designedCapacity: number): 'good' | 'fair' | 'poor' {
  const ratio = designedCapacity > 0 ? maxCapacity / designedCapacity : 1;
  return ratio >= 0.8 ? 'good' : ratio >= 0.6 ? 'fair' : 'poor';
}
