;; A Scheme bot for the sexp protocol (the Scheme course's torus duel), for the judge's
;; tests: it says its name, reads the board and the walls, then each turn both
;; positions, and steps to the free neighbour that gives it the most territory (the free
;; cells it reaches before the opponent, by breadth-first distances), avoiding cells the
;; opponent could also enter this turn; ties go to the cell with fewer free neighbours
;; (hugging walls and trails). It keeps the trails itself: every position it is told
;; becomes trail.

(define (say x) (display x) (newline) (force-output))

(say "Guile Territory")

(define size (read))
(define width (car size))
(define height (cdr size))
(define taken (make-hash-table))

(define (key p) (+ (* (cdr p) width) (car p)))
(define (free? p) (not (hash-ref taken (key p) #f)))
(define (take! p) (hash-set! taken (key p) #t))

(for-each take! (read))

(define moves '((n 0 . -1) (e 1 . 0) (s 0 . 1) (w -1 . 0)))

(define (step p m)
  (cons (modulo (+ (car p) (cadr m)) width) (modulo (+ (cdr p) (cddr m)) height)))

(define (neighbours p) (map (lambda (m) (step p m)) moves))

(define (exits p) (length (filter free? (neighbours p))))

(define (distances start)
  ;; breadth-first steps from start through free cells: a table from cell key to steps
  (let ((dist (make-hash-table)))
    (hash-set! dist (key start) 0)
    (let loop ((front (list start)) (d 0))
      (unless (null? front)
        (let grow ((cells front) (next '()))
          (if (null? cells)
              (loop next (+ d 1))
              (grow (cdr cells)
                    (let add ((ns (neighbours (car cells))) (next next))
                      (cond
                       ((null? ns) next)
                       ((and (free? (car ns)) (not (hash-ref dist (key (car ns)) #f)))
                        (hash-set! dist (key (car ns)) (+ d 1))
                        (add (cdr ns) (cons (car ns) next)))
                       (else (add (cdr ns) next)))))))))
    dist))

(define (territory p theirs)
  ;; cells reached from p (one step from the head) strictly before the opponent's head
  (let ((mine (distances p)) (count 0))
    (hash-for-each
     (lambda (k d)
       (let ((t (hash-ref theirs k #f)))
         (when (or (not t) (< (+ d 1) t))
           (set! count (+ count 1)))))
     mine)
    count))

(define (choose me other)
  (let ((danger (neighbours other))
        (theirs (distances other)))
    (let loop ((ms moves) (best 'n) (top -1))
      (if (null? ms)
          best
          (let* ((p (step me (car ms)))
                 (s (if (free? p)
                        (- (* 100 (territory p theirs))
                           (if (member p danger) 50000 0)
                           (exits p))
                        -1000000)))
            (if (> s top)
                (loop (cdr ms) (caar ms) s)
                (loop (cdr ms) best top)))))))

(let turn ()
  (let ((me (read)))
    (when (pair? me)
      (let ((other (read)))
        (take! me)
        (take! other)
        (say (choose me other))
        (turn)))))
