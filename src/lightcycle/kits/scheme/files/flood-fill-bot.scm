;; A brain that looks ahead: for each safe move it counts the cells it would reach before
;; the opponent does (a breadth-first search from each side over the free cells), and
;; takes the move with the most.  Once the two are walled apart that is simply the room
;; it has left.  It steps aside from the cells the opponent can enter next turn while it
;; has another move with nearly as much room, since meeting head-on is a draw.  It plays on Guile and Chez:
;;
;;   (load "tron.scm")
;;   (load "random-move-bot.scm")
;;   (load "flood-fill-bot.scm")
;;   (play-tron '(20 . 20) '() '(5 . 10) '(15 . 10) flood-fill-bot random-move-bot)
;;
;; The state is the list of every cell taken so far (walls and both trails), as in the
;; course's example brain; the board is rebuilt as a vector each turn for speed.

(define-tron-brain (flood-fill-bot
                    ("Flood Fill Bot" size start-walls play ppos opos)
                    (taken start-walls))
  (define w (car size))
  (define h (cdr size))
  (define now (cons* ppos opos taken))
  (define (index p) (+ (car p) (* w (cdr p))))
  ;; the board: #t where a cell is taken
  (define board
    (let ((v (make-vector (* w h) #f)))
      (for-each (lambda (p) (vector-set! v (index p) #t)) now)
      v))
  (define (free? p) (not (vector-ref board (index p))))
  ;; steps from `start' to every cell it can reach over free cells (#f: out of reach);
  ;; `blocked' is one more cell to treat as taken (our own next cell, for the opponent)
  (define (distances start blocked)
    (let ((dist (make-vector (* w h) #f)))
      (vector-set! dist (index start) 0)
      (let loop ((todo (list start)) (next '()) (d 1))
        (cond
          ((and (null? todo) (null? next)) dist)
          ((null? todo) (loop (reverse next) '() (+ d 1)))
          (else
           (let ((here (car todo)))
             (loop (cdr todo)
                   (fold-left
                    (lambda (acc m)
                      (let ((q (get-pos m here size)))
                        (if (or (vector-ref dist (index q)) (not (free? q)) (equal? q blocked))
                            acc
                            (begin (vector-set! dist (index q) d) (cons q acc)))))
                    next
                    valid-moves)
                   d)))))))
  ;; the cells we reach first after moving to p (the opponent moves at the same time)
  (define (territory p)
    (let ((mine (distances p #f))
          (theirs (distances opos p)))
      (let count ((i 0) (n 0))
        (if (= i (* w h))
            n
            (let ((a (vector-ref mine i)) (b (vector-ref theirs i)))
              (count (+ i 1)
                     (if (and a (or (not b) (< (+ a 1) b))) (+ n 1) n)))))))
  ;; the cells the opponent may move into next turn
  (define danger (map (lambda (m) (get-pos m opos size)) valid-moves))
  ;; a move there risks a draw: worth it only to escape a much smaller space
  (define (score m)
    (let ((p (get-pos m ppos size)))
      (if (member p danger) (quotient (territory p) 4) (territory p))))
  (let ((safe (filter (lambda (m) (free? (get-pos m ppos size))) valid-moves)))
    (if (null? safe)
        (play 'n now)
        (let ((scores (map (lambda (m) (cons (score m) m)) safe)))
          (play (cdr (fold-left (lambda (best s) (if (> (car s) (car best)) s best))
                                (car scores)
                                (cdr scores)))
                now)))))
