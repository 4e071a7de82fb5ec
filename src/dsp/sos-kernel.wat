;; The SosFilter's inner loops in WebAssembly with 128-bit SIMD (built into sos-kernel.wasm by
;; scripts/build-wasm.mjs at `npm run build`).
;;
;; Why: the cascade's recursion is a chain of dependent multiplies and adds per channel, so one
;; channel at a time is bound by latency, not by arithmetic. Running eight channels side by side
;; (four f64x2 vectors) keeps four independent chains in flight and does two channels per
;; instruction, which is what makes the filter faster than scipy's compiled `sosfilt`.
;;
;; Exactness: every lane computes, in float64, the very operations of scipy's `_sosfilt` in the
;; same order (y = b0·x + z0; z0 = (b1·x − a1·y) + z1; z1 = b2·x − a2·y). WebAssembly's f64x2
;; arithmetic is IEEE-754 per lane with no fused multiply-add, so the output equals scipy's to the
;; last bit for the same coefficients.
;;
;; Memory layout is chosen by the caller (sos.ts); every pointer is a byte offset:
;; - `sos`: sections × 6 f64 (b0 b1 b2 a0 a1 a2), a0 = 1 and unused here;
;; - `state`: per section, per group of 8 channels: z0 of the 8 channels, then z1 of the 8;
;; - `work`: frames × stride f64, sample-major; stride is the channel count rounded up to a
;;   multiple of 8 and the padding channels stay 0 (zero in, zero out);
;; - `io`: frames × channels f32 or f64, sample-major, as frames travel in headsetd.
(module
  (memory (export "memory") 1)

  ;; io (f32, frames × channels) → work (f64, frames × stride)
  (func (export "load_f32") (param $io i32) (param $work i32) (param $frames i32) (param $channels i32) (param $stride i32)
    (local $i i32) (local $c i32) (local $src i32) (local $dst i32)
    (local.set $src (local.get $io))
    (block $done
      (loop $row
        (br_if $done (i32.ge_u (local.get $i) (local.get $frames)))
        (local.set $dst (i32.add (local.get $work) (i32.shl (i32.mul (local.get $i) (local.get $stride)) (i32.const 3))))
        (local.set $c (i32.const 0))
        (block $rowdone
          (loop $col
            (br_if $rowdone (i32.ge_u (local.get $c) (local.get $channels)))
            (f64.store (local.get $dst) (f64.promote_f32 (f32.load (local.get $src))))
            (local.set $src (i32.add (local.get $src) (i32.const 4)))
            (local.set $dst (i32.add (local.get $dst) (i32.const 8)))
            (local.set $c (i32.add (local.get $c) (i32.const 1)))
            (br $col)))
        (local.set $i (i32.add (local.get $i) (i32.const 1)))
        (br $row))))

  ;; work (f64) → io (f32), rounding to nearest as a Float32Array store does
  (func (export "store_f32") (param $io i32) (param $work i32) (param $frames i32) (param $channels i32) (param $stride i32)
    (local $i i32) (local $c i32) (local $src i32) (local $dst i32)
    (local.set $dst (local.get $io))
    (block $done
      (loop $row
        (br_if $done (i32.ge_u (local.get $i) (local.get $frames)))
        (local.set $src (i32.add (local.get $work) (i32.shl (i32.mul (local.get $i) (local.get $stride)) (i32.const 3))))
        (local.set $c (i32.const 0))
        (block $rowdone
          (loop $col
            (br_if $rowdone (i32.ge_u (local.get $c) (local.get $channels)))
            (f32.store (local.get $dst) (f32.demote_f64 (f64.load (local.get $src))))
            (local.set $src (i32.add (local.get $src) (i32.const 8)))
            (local.set $dst (i32.add (local.get $dst) (i32.const 4)))
            (local.set $c (i32.add (local.get $c) (i32.const 1)))
            (br $col)))
        (local.set $i (i32.add (local.get $i) (i32.const 1)))
        (br $row))))

  ;; io (f64, frames × channels) → work (f64, frames × stride)
  (func (export "load_f64") (param $io i32) (param $work i32) (param $frames i32) (param $channels i32) (param $stride i32)
    (local $i i32) (local $c i32) (local $src i32) (local $dst i32)
    (local.set $src (local.get $io))
    (block $done
      (loop $row
        (br_if $done (i32.ge_u (local.get $i) (local.get $frames)))
        (local.set $dst (i32.add (local.get $work) (i32.shl (i32.mul (local.get $i) (local.get $stride)) (i32.const 3))))
        (local.set $c (i32.const 0))
        (block $rowdone
          (loop $col
            (br_if $rowdone (i32.ge_u (local.get $c) (local.get $channels)))
            (f64.store (local.get $dst) (f64.load (local.get $src)))
            (local.set $src (i32.add (local.get $src) (i32.const 8)))
            (local.set $dst (i32.add (local.get $dst) (i32.const 8)))
            (local.set $c (i32.add (local.get $c) (i32.const 1)))
            (br $col)))
        (local.set $i (i32.add (local.get $i) (i32.const 1)))
        (br $row))))

  ;; work (f64) → io (f64, frames × channels)
  (func (export "store_f64") (param $io i32) (param $work i32) (param $frames i32) (param $channels i32) (param $stride i32)
    (local $i i32) (local $c i32) (local $src i32) (local $dst i32)
    (local.set $dst (local.get $io))
    (block $done
      (loop $row
        (br_if $done (i32.ge_u (local.get $i) (local.get $frames)))
        (local.set $src (i32.add (local.get $work) (i32.shl (i32.mul (local.get $i) (local.get $stride)) (i32.const 3))))
        (local.set $c (i32.const 0))
        (block $rowdone
          (loop $col
            (br_if $rowdone (i32.ge_u (local.get $c) (local.get $channels)))
            (f64.store (local.get $dst) (f64.load (local.get $src)))
            (local.set $src (i32.add (local.get $src) (i32.const 8)))
            (local.set $dst (i32.add (local.get $dst) (i32.const 8)))
            (local.set $c (i32.add (local.get $c) (i32.const 1)))
            (br $col)))
        (local.set $i (i32.add (local.get $i) (i32.const 1)))
        (br $row))))

  ;; Runs every section over `work` in place, eight channels at a time, carrying `state`.
  (func (export "filter") (param $work i32) (param $frames i32) (param $stride i32) (param $sos i32) (param $sections i32) (param $state i32)
    (local $s i32) (local $g i32) (local $k i32) (local $z i32) (local $p i32) (local $end i32) (local $row i32)
    (local $b0 v128) (local $b1 v128) (local $b2 v128) (local $a1 v128) (local $a2 v128)
    (local $p0 v128) (local $p1 v128) (local $p2 v128) (local $p3 v128)
    (local $q0 v128) (local $q1 v128) (local $q2 v128) (local $q3 v128)
    (local $x0 v128) (local $x1 v128) (local $x2 v128) (local $x3 v128)
    (local $y0 v128) (local $y1 v128) (local $y2 v128) (local $y3 v128)
    (local.set $row (i32.shl (local.get $stride) (i32.const 3)))
    (local.set $z (local.get $state))
    (block $sdone
      (loop $section
        (br_if $sdone (i32.ge_u (local.get $s) (local.get $sections)))
        (local.set $k (i32.add (local.get $sos) (i32.mul (local.get $s) (i32.const 48))))
        (local.set $b0 (f64x2.splat (f64.load offset=0 (local.get $k))))
        (local.set $b1 (f64x2.splat (f64.load offset=8 (local.get $k))))
        (local.set $b2 (f64x2.splat (f64.load offset=16 (local.get $k))))
        (local.set $a1 (f64x2.splat (f64.load offset=32 (local.get $k))))
        (local.set $a2 (f64x2.splat (f64.load offset=40 (local.get $k))))
        (local.set $g (i32.const 0))
        (block $gdone
          (loop $group
            (br_if $gdone (i32.ge_u (local.get $g) (local.get $stride)))
            (local.set $p0 (v128.load offset=0 (local.get $z)))
            (local.set $p1 (v128.load offset=16 (local.get $z)))
            (local.set $p2 (v128.load offset=32 (local.get $z)))
            (local.set $p3 (v128.load offset=48 (local.get $z)))
            (local.set $q0 (v128.load offset=64 (local.get $z)))
            (local.set $q1 (v128.load offset=80 (local.get $z)))
            (local.set $q2 (v128.load offset=96 (local.get $z)))
            (local.set $q3 (v128.load offset=112 (local.get $z)))
            (local.set $p (i32.add (local.get $work) (i32.shl (local.get $g) (i32.const 3))))
            (local.set $end (i32.add (local.get $p) (i32.mul (local.get $frames) (local.get $row))))
            (block $idone
              (loop $sample
                (br_if $idone (i32.ge_u (local.get $p) (local.get $end)))
                (local.set $x0 (v128.load offset=0 (local.get $p)))
                (local.set $x1 (v128.load offset=16 (local.get $p)))
                (local.set $x2 (v128.load offset=32 (local.get $p)))
                (local.set $x3 (v128.load offset=48 (local.get $p)))
                ;; y = b0·x + z0
                (local.set $y0 (f64x2.add (f64x2.mul (local.get $b0) (local.get $x0)) (local.get $p0)))
                (local.set $y1 (f64x2.add (f64x2.mul (local.get $b0) (local.get $x1)) (local.get $p1)))
                (local.set $y2 (f64x2.add (f64x2.mul (local.get $b0) (local.get $x2)) (local.get $p2)))
                (local.set $y3 (f64x2.add (f64x2.mul (local.get $b0) (local.get $x3)) (local.get $p3)))
                ;; z0 = (b1·x − a1·y) + z1
                (local.set $p0 (f64x2.add (f64x2.sub (f64x2.mul (local.get $b1) (local.get $x0)) (f64x2.mul (local.get $a1) (local.get $y0))) (local.get $q0)))
                (local.set $p1 (f64x2.add (f64x2.sub (f64x2.mul (local.get $b1) (local.get $x1)) (f64x2.mul (local.get $a1) (local.get $y1))) (local.get $q1)))
                (local.set $p2 (f64x2.add (f64x2.sub (f64x2.mul (local.get $b1) (local.get $x2)) (f64x2.mul (local.get $a1) (local.get $y2))) (local.get $q2)))
                (local.set $p3 (f64x2.add (f64x2.sub (f64x2.mul (local.get $b1) (local.get $x3)) (f64x2.mul (local.get $a1) (local.get $y3))) (local.get $q3)))
                ;; z1 = b2·x − a2·y
                (local.set $q0 (f64x2.sub (f64x2.mul (local.get $b2) (local.get $x0)) (f64x2.mul (local.get $a2) (local.get $y0))))
                (local.set $q1 (f64x2.sub (f64x2.mul (local.get $b2) (local.get $x1)) (f64x2.mul (local.get $a2) (local.get $y1))))
                (local.set $q2 (f64x2.sub (f64x2.mul (local.get $b2) (local.get $x2)) (f64x2.mul (local.get $a2) (local.get $y2))))
                (local.set $q3 (f64x2.sub (f64x2.mul (local.get $b2) (local.get $x3)) (f64x2.mul (local.get $a2) (local.get $y3))))
                (v128.store offset=0 (local.get $p) (local.get $y0))
                (v128.store offset=16 (local.get $p) (local.get $y1))
                (v128.store offset=32 (local.get $p) (local.get $y2))
                (v128.store offset=48 (local.get $p) (local.get $y3))
                (local.set $p (i32.add (local.get $p) (local.get $row)))
                (br $sample)))
            (v128.store offset=0 (local.get $z) (local.get $p0))
            (v128.store offset=16 (local.get $z) (local.get $p1))
            (v128.store offset=32 (local.get $z) (local.get $p2))
            (v128.store offset=48 (local.get $z) (local.get $p3))
            (v128.store offset=64 (local.get $z) (local.get $q0))
            (v128.store offset=80 (local.get $z) (local.get $q1))
            (v128.store offset=96 (local.get $z) (local.get $q2))
            (v128.store offset=112 (local.get $z) (local.get $q3))
            (local.set $z (i32.add (local.get $z) (i32.const 128)))
            (local.set $g (i32.add (local.get $g) (i32.const 8)))
            (br $group)))
        (local.set $s (i32.add (local.get $s) (i32.const 1)))
        (br $section))))
)
