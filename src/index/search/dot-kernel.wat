(module
  (import "env" "memory" (memory 1))
  ;; out[r] (f64) = the dot product of row r (dims f32 at matrix + r*dims*4) with the query (dims f64 at
  ;; query), summed exactly as the JavaScript loop does: four running sums over j mod 4, the remainder
  ;; into the first, then ((s0 + s1) + s2) + s3.
  (func (export "dot") (param $matrix i32) (param $query i32) (param $n i32) (param $dims i32) (param $out i32)
    (local $row i32) (local $rowEnd i32) (local $p i32) (local $q i32) (local $vecEnd i32)
    (local $lo v128) (local $hi v128) (local $v v128) (local $s0 f64)
    (local.set $row (local.get $matrix))
    (local.set $rowEnd (i32.add (local.get $matrix) (i32.mul (i32.mul (local.get $n) (local.get $dims)) (i32.const 4))))
    (block $done
      (loop $rows
        (br_if $done (i32.ge_u (local.get $row) (local.get $rowEnd)))
        (local.set $lo (v128.const i64x2 0 0))
        (local.set $hi (v128.const i64x2 0 0))
        (local.set $p (local.get $row))
        (local.set $q (local.get $query))
        (local.set $vecEnd (i32.add (local.get $row) (i32.mul (i32.and (local.get $dims) (i32.const -4)) (i32.const 4))))
        (block $vdone
          (loop $vec
            (br_if $vdone (i32.ge_u (local.get $p) (local.get $vecEnd)))
            (local.set $v (v128.load (local.get $p)))
            (local.set $lo (f64x2.add (local.get $lo) (f64x2.mul (f64x2.promote_low_f32x4 (local.get $v)) (v128.load (local.get $q)))))
            (local.set $hi (f64x2.add (local.get $hi) (f64x2.mul (f64x2.promote_low_f32x4 (i8x16.shuffle 8 9 10 11 12 13 14 15 0 1 2 3 4 5 6 7 (local.get $v) (local.get $v))) (v128.load offset=16 (local.get $q)))))
            (local.set $p (i32.add (local.get $p) (i32.const 16)))
            (local.set $q (i32.add (local.get $q) (i32.const 32)))
            (br $vec)))
        (local.set $s0 (f64x2.extract_lane 0 (local.get $lo)))
        (local.set $vecEnd (i32.add (local.get $row) (i32.mul (local.get $dims) (i32.const 4))))
        (block $rdone
          (loop $rest
            (br_if $rdone (i32.ge_u (local.get $p) (local.get $vecEnd)))
            (local.set $s0 (f64.add (local.get $s0) (f64.mul (f64.promote_f32 (f32.load (local.get $p))) (f64.load (local.get $q)))))
            (local.set $p (i32.add (local.get $p) (i32.const 4)))
            (local.set $q (i32.add (local.get $q) (i32.const 8)))
            (br $rest)))
        (f64.store (local.get $out)
          (f64.add (f64.add (f64.add (local.get $s0) (f64x2.extract_lane 1 (local.get $lo))) (f64x2.extract_lane 0 (local.get $hi))) (f64x2.extract_lane 1 (local.get $hi))))
        (local.set $out (i32.add (local.get $out) (i32.const 8)))
        (local.set $row (local.get $vecEnd))
        (br $rows))))
  ;; out[r] (f32) = (the dot product of row r of an int8 matrix (dims i8 at matrix + r*dims) with an int16
  ;; query (dims i16 at query), summed exactly in i32) * scales[r] (f32). Integer sums do not depend on
  ;; their order, so the SIMD loop and the scalar tail give the same result as any other order. The caller
  ;; bounds the query so that no sum can overflow (|q| * 127 * dims < 2^31).
  (func (export "dot_i8") (param $matrix i32) (param $scales i32) (param $query i32) (param $n i32) (param $dims i32) (param $out i32)
    (local $row i32) (local $end i32) (local $p i32) (local $q i32) (local $vecEnd i32) (local $rowEnd i32)
    (local $a v128) (local $b v128) (local $v v128) (local $w v128) (local $s i32)
    (local.set $row (local.get $matrix))
    (local.set $end (i32.add (local.get $matrix) (i32.mul (local.get $n) (local.get $dims))))
    (block $done
      (loop $rows
        (br_if $done (i32.ge_u (local.get $row) (local.get $end)))
        (local.set $a (v128.const i64x2 0 0))
        (local.set $b (v128.const i64x2 0 0))
        (local.set $p (local.get $row))
        (local.set $q (local.get $query))
        (local.set $rowEnd (i32.add (local.get $row) (local.get $dims)))
        ;; 32 bytes of the row (two vectors) per turn while they last, then 16, then one at a time.
        (local.set $vecEnd (i32.add (local.get $row) (i32.and (local.get $dims) (i32.const -32))))
        (block $wdone
          (loop $wide
            (br_if $wdone (i32.ge_u (local.get $p) (local.get $vecEnd)))
            (local.set $v (v128.load (local.get $p)))
            (local.set $w (v128.load offset=16 (local.get $p)))
            (local.set $a (i32x4.add (local.get $a) (i32x4.dot_i16x8_s (i16x8.extend_low_i8x16_s (local.get $v)) (v128.load (local.get $q)))))
            (local.set $b (i32x4.add (local.get $b) (i32x4.dot_i16x8_s (i16x8.extend_high_i8x16_s (local.get $v)) (v128.load offset=16 (local.get $q)))))
            (local.set $a (i32x4.add (local.get $a) (i32x4.dot_i16x8_s (i16x8.extend_low_i8x16_s (local.get $w)) (v128.load offset=32 (local.get $q)))))
            (local.set $b (i32x4.add (local.get $b) (i32x4.dot_i16x8_s (i16x8.extend_high_i8x16_s (local.get $w)) (v128.load offset=48 (local.get $q)))))
            (local.set $p (i32.add (local.get $p) (i32.const 32)))
            (local.set $q (i32.add (local.get $q) (i32.const 64)))
            (br $wide)))
        (local.set $vecEnd (i32.add (local.get $row) (i32.and (local.get $dims) (i32.const -16))))
        (if (i32.lt_u (local.get $p) (local.get $vecEnd))
          (then
            (local.set $v (v128.load (local.get $p)))
            (local.set $a (i32x4.add (local.get $a) (i32x4.dot_i16x8_s (i16x8.extend_low_i8x16_s (local.get $v)) (v128.load (local.get $q)))))
            (local.set $b (i32x4.add (local.get $b) (i32x4.dot_i16x8_s (i16x8.extend_high_i8x16_s (local.get $v)) (v128.load offset=16 (local.get $q)))))
            (local.set $p (i32.add (local.get $p) (i32.const 16)))
            (local.set $q (i32.add (local.get $q) (i32.const 32)))))
        (local.set $a (i32x4.add (local.get $a) (local.get $b)))
        (local.set $s (i32.add (i32.add (i32x4.extract_lane 0 (local.get $a)) (i32x4.extract_lane 1 (local.get $a))) (i32.add (i32x4.extract_lane 2 (local.get $a)) (i32x4.extract_lane 3 (local.get $a)))))
        (block $rdone
          (loop $rest
            (br_if $rdone (i32.ge_u (local.get $p) (local.get $rowEnd)))
            (local.set $s (i32.add (local.get $s) (i32.mul (i32.load8_s (local.get $p)) (i32.load16_s (local.get $q)))))
            (local.set $p (i32.add (local.get $p) (i32.const 1)))
            (local.set $q (i32.add (local.get $q) (i32.const 2)))
            (br $rest)))
        (f32.store (local.get $out) (f32.mul (f32.convert_i32_s (local.get $s)) (f32.load (local.get $scales))))
        (local.set $out (i32.add (local.get $out) (i32.const 4)))
        (local.set $scales (i32.add (local.get $scales) (i32.const 4)))
        (local.set $row (local.get $rowEnd))
        (br $rows)))))
