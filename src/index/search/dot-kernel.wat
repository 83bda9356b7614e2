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
        (br $rows)))))
