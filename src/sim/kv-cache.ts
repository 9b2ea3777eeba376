/**
 * Block accounting of a paged KV cache with a prefix cache. Private blocks belong to one sequence; full
 * prompt blocks are promoted to shared, hash-addressed blocks with a reference count. Shared blocks nobody
 * references stay cached (and count as free, as vLLM reports usage) until evicted least recently used.
 */
export class KvCache {
  private privateInUse = 0;
  private readonly shared = new Map<string, { refs: number }>();
  /** Unreferenced shared blocks, oldest first (Map keeps insertion order). */
  private readonly evictable = new Map<string, true>();

  constructor(public total: number) {}

  get cachedCount(): number {
    return this.shared.size;
  }

  /** Fraction of blocks held by running sequences (vLLM's kv_cache_usage_perc). */
  get usage(): number {
    const inUse = this.privateInUse + this.shared.size - this.evictable.size;
    return this.total > 0 ? Math.min(1, inUse / this.total) : 0;
  }

  resize(total: number): void {
    this.total = total;
  }

  /** Chained hashes of the full blocks of a prompt, salted so different salts never share. */
  hashPromptBlocks(tokens: readonly number[], blockSize: number, salt: string): string[] {
    const hashes: string[] = [];
    let a = 0x811c9dc5;
    let b = 0x01000193;
    for (let i = 0; i < salt.length; i++) {
      a = Math.imul(a ^ salt.charCodeAt(i), 0x01000193);
      b = Math.imul(b ^ salt.charCodeAt(i), 0x5bd1e995);
    }
    const full = Math.floor(tokens.length / blockSize);
    for (let block = 0; block < full; block++) {
      for (let i = block * blockSize; i < (block + 1) * blockSize; i++) {
        const token = tokens[i]!;
        a = Math.imul(a ^ token, 0x01000193);
        b = Math.imul(b ^ token ^ (b >>> 15), 0x5bd1e995);
      }
      hashes.push(`${(a >>> 0).toString(36)}.${(b >>> 0).toString(36)}.${block}`);
    }
    return hashes;
  }

  /** The longest run of leading blocks that are cached, at most `limit`. */
  lookup(hashes: readonly string[], limit: number): string[] {
    const hits: string[] = [];
    const end = Math.min(limit, hashes.length);
    for (let i = 0; i < end; i++) {
      const hash = hashes[i]!;
      if (!this.shared.has(hash)) break;
      hits.push(hash);
    }
    return hits;
  }

  private freeCount(): number {
    return this.total - this.privateInUse - this.shared.size;
  }

  /** Makes room by evicting unreferenced cached blocks; false if even that is not enough. */
  private ensureFree(blocks: number): boolean {
    if (this.freeCount() + this.evictable.size < blocks) return false;
    for (const hash of this.evictable.keys()) {
      if (this.freeCount() >= blocks) break;
      this.evictable.delete(hash);
      this.shared.delete(hash);
    }
    return this.freeCount() >= blocks;
  }

  acquire(hashes: readonly string[]): boolean {
    for (const hash of hashes) {
      const block = this.shared.get(hash)!;
      if (block.refs === 0) this.evictable.delete(hash);
      block.refs++;
    }
    return true;
  }

  /**
   * A sequence's blocks in chain order, released tail first, as vLLM frees a request's blocks (in reverse,
   * `free` in vllm/v1/core/single_type_kv_cache_manager.py): when the cache runs short, the end of a
   * cached prompt is evicted before its start, so a later request with that prefix still reuses the
   * leading blocks (a chain is only reused up to its first missing block).
   */
  release(hashes: readonly string[]): void {
    for (let i = hashes.length - 1; i >= 0; i--) {
      const hash = hashes[i]!;
      const block = this.shared.get(hash);
      if (!block) continue;
      block.refs--;
      if (block.refs <= 0) {
        block.refs = 0;
        this.evictable.set(hash, true);
      }
    }
  }

  allocatePrivate(blocks: number): boolean {
    if (!this.ensureFree(blocks)) return false;
    this.privateInUse += blocks;
    return true;
  }

  freePrivate(blocks: number): void {
    this.privateInUse = Math.max(0, this.privateInUse - blocks);
  }

  /** A private block became a full prompt block: share it, or drop it for an identical cached one. */
  promote(hash: string): void {
    this.privateInUse--;
    const existing = this.shared.get(hash);
    if (existing) {
      if (existing.refs === 0) this.evictable.delete(hash);
      existing.refs++;
      return;
    }
    this.shared.set(hash, { refs: 1 });
  }

  /** Drops every unreferenced cached block (POST /reset_prefix_cache). */
  resetEvictable(): boolean {
    for (const hash of this.evictable.keys()) this.shared.delete(hash);
    this.evictable.clear();
    return true;
  }
}
