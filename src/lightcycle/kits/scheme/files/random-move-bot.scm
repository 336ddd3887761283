;; The course's example brain (Tron API, section 3): it moves at random, but never into a
;; wall or a trail while it has a safe move.  Load tron.scm first, then this file:
;;
;;   (load "tron.scm")
;;   (load "random-move-bot.scm")
;;   (play-tron '(37 . 10) (make-outer-walls '(37 . 10)) '(1 . 1) '(35 . 8)
;;              random-move-bot random-move-bot)
;;
;; The code is the document's, word for word, with the one closing parenthesis its
;; listing lacks added at the end.

(define-tron-brain (random-move-bot
                    ("Random Move Bot" size orig-walls play ppos opos)
                    (walls orig-walls))
  (let ([new-walls (cons* ppos opos walls)])
    (define (safe? m)
      (and (not (member (get-pos m ppos size) new-walls)) #t))
    (let ([safe-moves (filter safe? valid-moves)])
      (play
        (if (null? safe-moves)
            (list-ref valid-moves (random (length valid-moves)))
            (list-ref safe-moves (random (length safe-moves))))
        new-walls))))
